// A provider on loopback that replays a transcript from tests/fixtures/providers/: a JSON
// answer with its status, or an SSE stream exactly as written (one that ends without
// `data: [DONE]` is cut there), and records what it was sent.

const FIXTURES = new URL("../fixtures/providers/", import.meta.url);

export interface Transcript {
  status: number;
  contentType: string;
  body: string;
}

/** A provider's non-streamed answer (`completion.json`). */
export async function jsonTranscript(provider: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const file = (await Bun.file(new URL(`${provider}/completion.json`, FIXTURES)).json()) as { status: number; body: Record<string, unknown> };
  return { status: file.status, body: file.body };
}

/** A provider's stream (`stream.sse`) as its events' `data:` payloads, the source line left out. */
export async function sseTranscript(provider: string): Promise<string[]> {
  const text = await Bun.file(new URL(`${provider}/stream.sse`, FIXTURES)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice("data: ".length));
}

export const sse = (payloads: string[]): Transcript => ({
  status: 200,
  contentType: "text/event-stream",
  body: payloads.map((p) => `data: ${p}\n\n`).join(""),
});

export interface FixtureProvider {
  baseUrl: string;
  received: Record<string, unknown>[];
  replay(transcript: Transcript): void;
  stop(): Promise<void>;
}

export function startFixtureProvider(): FixtureProvider {
  let transcript: Transcript = { status: 500, contentType: "application/json", body: "{}" };
  const received: Record<string, unknown>[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push((await request.json()) as Record<string, unknown>);
      return new Response(transcript.body, { status: transcript.status, headers: { "content-type": transcript.contentType } });
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    received,
    replay: (next) => {
      transcript = next;
    },
    stop: () => server.stop(true),
  };
}
