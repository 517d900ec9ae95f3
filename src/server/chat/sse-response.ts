import type { StreamSink } from "../../core/chat/relay.ts";

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" };

/**
 * A Server-Sent Events response whose body `relay` writes. When the client goes away, the
 * sink stops writing and `clientLeft` runs (once).
 *
 * The body is one of Bun's direct streams: each event is written into the response as it is
 * emitted (a string without being encoded first), where a queued stream holds every chunk as
 * its own array, with a read request and its promises, until the response takes it. Holding
 * thousands of streams, those arrays and their garbage were most of what the gateway held
 * beyond a bare relay.
 */
export function sseResponse(
  options: { relay(sink: StreamSink): Promise<void>; clientLeft(): Promise<void> },
  headers: Record<string, string> = {},
): Response {
  let gone = false;
  let relaying = false;
  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    // Bun's direct controller writes straight into the response: copied or sent before `write` returns.
    async pull(controller) {
      relaying = true;
      const write = (data: string | Uint8Array) => {
        if (!gone) void controller.write(data);
      };
      const sink: StreamSink = {
        emit: write,
        emitBytes: write,
        flush: async () => {
          if (!gone) await controller.flush();
        },
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
      const left = options.clientLeft();
      // A client gone before the body began (Bun then cancels without pulling) still has its
      // relay run, to nowhere: the disconnect policy may want the provider's stream read on.
      if (!relaying) {
        relaying = true;
        void options.relay(GONE);
      }
      await left;
    },
  };
  // bun-types declares the direct overload of the constructor where this tsconfig does not see it.
  const stream = new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
  return new Response(stream, { headers: { ...SSE_HEADERS, ...headers } });
}

/** Where a relay writes for a client that has gone: nowhere. */
const GONE: StreamSink = { emit() {}, emitBytes() {}, flush: async () => {}, gone: true };
