// A fake OpenAI-compatible provider on loopback: it speaks the real wire format (JSON and SSE),
// records every request it receives, and behaves as the test tells it to.

export interface Behavior {
  /** Answer with this status and an OpenAI-style error body instead of a completion. */
  status?: number;
  errorMessage?: string;
  content?: string;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Send usage inside the finish chunk (DeepSeek style) instead of a separate chunk. */
  usageInFinalChunk?: boolean;
  /** Content chunks in a stream. */
  chunks?: number;
  /** Wait this long before answering (non-streaming) or before the first chunk. */
  delayMs?: number;
  /** Stream: after this many content chunks, go silent and keep the connection open. */
  stallAfter?: number;
  /** Stream: after this many content chunks, break the connection. */
  breakAfter?: number;
  /** Answer 200 with a body that is not JSON; streaming, the content chunks and then an event that is not JSON, all in one write. */
  malformed?: boolean;
  /**
   * Hold each request until this settles: before answering (non-streaming) or after the first
   * chunk (stream). Requests stay in flight, holding their reservations, until the test lets go.
   */
  holdUntil?: Promise<unknown>;
  /** Answer 200 with a completion this many bytes long or, streaming, one event that long without a line break. */
  oversizedBytes?: number;
  /**
   * How a non-streaming oversized answer is framed: with its Content-Length (the default), in
   * chunks without one, or gzip-compressed (a small body that inflates past the cap).
   */
  oversizedFraming?: "length" | "chunked" | "gzip";
}

export interface Received {
  path: string;
  authorization: string | null;
  body: Record<string, unknown>;
}

const DEFAULT: Required<Pick<Behavior, "content" | "chunks">> & { usage: { prompt_tokens: number; completion_tokens: number } } = {
  content: "Hello from the fake provider",
  chunks: 3,
  usage: { prompt_tokens: 11, completion_tokens: 7 },
};

export interface FakeUpstream {
  /** Base URL ending in /v1, for <P>_BASE_URL. */
  baseUrl: string;
  received: Received[];
  /** Behaviour for every request until changed. */
  behave(behavior: Behavior): void;
  /** Streams still open (stalled ones included). */
  openStreams(): number;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startFakeUpstream(): FakeUpstream {
  let behavior: Behavior = {};
  let open = 0;
  const received: Received[] = [];

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = (await request.json()) as Record<string, unknown>;
      received.push({ path: url.pathname, authorization: request.headers.get("authorization"), body });
      const b = behavior;
      if (b.status && b.status >= 400) {
        if (b.delayMs) await sleep(b.delayMs);
        return Response.json({ error: { message: b.errorMessage ?? "fake failure", type: "fake_error" } }, { status: b.status });
      }
      const id = `chatcmpl-fake-${received.length}`;
      const created = Math.floor(Date.now() / 1000);
      const usage = b.usage === undefined ? DEFAULT.usage : b.usage;
      const content = b.content ?? DEFAULT.content;
      if (!body.stream) {
        if (b.delayMs) await sleep(b.delayMs);
        if (b.holdUntil) await b.holdUntil;
        if (b.oversizedBytes) {
          const message = { role: "assistant", content: "x".repeat(b.oversizedBytes) };
          const answer = JSON.stringify({ id, object: "chat.completion", created, model: body.model, choices: [{ index: 0, message, finish_reason: "stop" }] });
          const headers = { "content-type": "application/json" };
          if (b.oversizedFraming === "gzip") return new Response(Bun.gzipSync(answer), { headers: { ...headers, "content-encoding": "gzip" } });
          if (b.oversizedFraming === "chunked") return new Response(new Blob([answer]).stream(), { headers });
          return new Response(answer, { headers });
        }
        if (b.malformed) return new Response("{not json", { headers: { "content-type": "application/json" } });
        return Response.json({
          id, object: "chat.completion", created, model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
        });
      }
      const chunks = b.chunks ?? DEFAULT.chunks;
      const parts = Array.from({ length: chunks }, (_, i) => content.slice(Math.floor((i * content.length) / chunks), Math.floor(((i + 1) * content.length) / chunks)));
      const encoder = new TextEncoder();
      const send = (c: ReadableStreamDefaultController, data: unknown) =>
        c.enqueue(encoder.encode(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`));
      const chunk = (delta: object, finish: string | null, extra: object = {}) => ({
        id, object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra,
      });
      const fullUsage = usage ? { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } : undefined;
      open++;
      let closed = false;
      const done = () => {
        if (!closed) open--;
        closed = true;
      };
      request.signal.addEventListener("abort", done);
      const stream = new ReadableStream({
        async start(c) {
          try {
            if (b.delayMs) await sleep(b.delayMs);
            send(c, chunk({ role: "assistant", content: "" }, null));
            if (b.holdUntil) await b.holdUntil;
            if (b.oversizedBytes) {
              c.enqueue(encoder.encode(`data: ${"x".repeat(b.oversizedBytes)}`));
              await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
              return;
            }
            if (b.malformed) {
              const events = [...parts.map((text) => chunk({ content: text }, null)), "{not json"];
              c.enqueue(encoder.encode(events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("")));
              c.close();
              return;
            }
            for (const [i, text] of parts.entries()) {
              if (b.stallAfter === i) {
                // Silent until the client goes away.
                await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
                return;
              }
              if (b.breakAfter === i) {
                c.error(new Error("connection broken by the fake"));
                return;
              }
              send(c, chunk({ content: text }, null));
              await sleep(1); // chunks arrive over time, as from a real provider
            }
            if (b.usageInFinalChunk) send(c, chunk({}, "stop", fullUsage ? { usage: fullUsage } : {}));
            else {
              send(c, chunk({}, "stop"));
              if (fullUsage) send(c, { id, object: "chat.completion.chunk", created, model: body.model, choices: [], usage: fullUsage });
            }
            send(c, "[DONE]");
            c.close();
          } finally {
            done();
          }
        },
        cancel: done,
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    },
  });

  const stop = async () => {
    await server.stop(true);
  };
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    received,
    behave: (next) => {
      behavior = next;
    },
    openStreams: () => open,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Points every provider at the fake, with a key the tests can recognise. */
export const providerEnv = (fake: FakeUpstream): Record<string, string> =>
  Object.fromEntries(
    ["OPENAI", "DEEPSEEK", "MOONSHOT", "XAI", "META"].flatMap((p) => [
      [`${p}_BASE_URL`, fake.baseUrl],
      [`${p}_API_KEY`, `sk-test-${p.toLowerCase()}-secret`],
    ]),
  );
