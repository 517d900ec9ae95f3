import type { StreamSink } from "../../core/chat/relay.ts";

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" };

/** What Bun gives a direct stream's `pull`: writes go straight to the response, copied or sent before they return. */
interface DirectController {
  write(data: string | Uint8Array): number | Promise<number>;
  flush(): number | Promise<number>;
  close(): void;
}

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
  const stream = new ReadableStream({
    type: "direct",
    async pull(controller: DirectController) {
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
      await options.clientLeft();
    },
  } as unknown as UnderlyingDefaultSource<Uint8Array>);
  return new Response(stream, { headers: { ...SSE_HEADERS, ...headers } });
}
