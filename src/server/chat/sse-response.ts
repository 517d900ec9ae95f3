import type { StreamSink } from "../../core/chat/relay.ts";

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" };
const encoder = new TextEncoder();

/**
 * A Server-Sent Events response whose body `relay` writes. When the client goes away, the
 * sink stops writing and `clientLeft` runs (once).
 */
export function sseResponse(
  options: { relay(sink: StreamSink): Promise<void>; clientLeft(): Promise<void> },
  headers: Record<string, string> = {},
): Response {
  let gone = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (bytes: Uint8Array) => {
        if (gone) return;
        try {
          controller.enqueue(bytes);
        } catch {
          gone = true; // the client went away between two events
        }
      };
      const sink: StreamSink = {
        emit: (payload) => write(encoder.encode(payload)),
        emitBytes: write,
        // Bun writes what was enqueued when the event loop turns.
        flush: () => new Promise((resolve) => setImmediate(resolve)),
        get gone() {
          return gone;
        },
      };
      try {
        await options.relay(sink);
      } finally {
        if (!gone) controller.close();
      }
    },
    async cancel() {
      gone = true;
      await options.clientLeft();
    },
  });
  return new Response(stream, { headers: { ...SSE_HEADERS, ...headers } });
}
