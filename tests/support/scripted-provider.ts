// A provider on loopback that answers every request with the body or stream the test gives
// it (as the provider's documentation shows it), and records what it was sent.

export interface ScriptedProvider {
  baseUrl: string;
  received: Record<string, unknown>[];
  /** Answer with this JSON (non-streamed) or these SSE payloads (streamed; `[DONE]` is added). */
  answer(json: Record<string, unknown>, events?: Record<string, unknown>[]): void;
  stop(): Promise<void>;
}

export function startScriptedProvider(): ScriptedProvider {
  let json: Record<string, unknown> = {};
  let events: Record<string, unknown>[] = [];
  const received: Record<string, unknown>[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = (await request.json()) as Record<string, unknown>;
      received.push(body);
      if (!body.stream) return Response.json(json);
      const text = [...events.map((e) => `data: ${JSON.stringify(e)}\n\n`), "data: [DONE]\n\n"].join("");
      return new Response(text, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    received,
    answer(nextJson, nextEvents = []) {
      json = nextJson;
      events = nextEvents;
    },
    stop: () => server.stop(true),
  };
}
