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
      if (wantsRichAnswer(b, body)) return richAnswer(b, body, { id, created, usage, content });
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
      // This fake speaks chat completions only: every Messages request is translated to it.
      [`${p}_ANTHROPIC_BASE_URL`, ""],
    ]),
  );

// ---------------------------------------------------------------------------------------------
// Rich answers for the client-library suite (tests/integration/clients): the fields OpenAI
// documents beyond a plain text completion. A request is answered here when it asks for more
// than one choice or for log probabilities, or when the test set one of the behaviours below;
// everything else (and every fault behaviour above) keeps the plain path and its defaults.
// Streams answered here are not counted by openStreams(): they always run to their end.
// ---------------------------------------------------------------------------------------------

/** A tool call the fake answers with: a function call (JSON arguments) or a custom tool's free-form input. */
export interface FakeToolCall {
  type?: "function" | "custom";
  name: string;
  /** Function arguments (a JSON text) or a custom tool's input. */
  arguments: string;
}

// Declaration merging adds these to Behavior without touching the interface above.
export interface Behavior {
  /** Answer with these tool calls (content null, finish_reason "tool_calls"); streamed as deltas: id, type and name first, then the arguments in fragments. */
  toolCalls?: FakeToolCall[];
  /** Answer with a refusal (`message.refusal`, content null); streamed as `delta.refusal` fragments. */
  refusal?: string;
  /** DeepSeek-style reasoning before the answer: `message.reasoning_content`, streamed as `delta.reasoning_content` fragments before the content. */
  reasoningContent?: string;
  /** Detail objects in the usage, as OpenAI reports them. */
  usageDetails?: { cached_tokens?: number; reasoning_tokens?: number };
  /** Further fields merged into the usage object as the provider reports it (e.g. DeepSeek's `prompt_cache_hit_tokens`). */
  usageExtra?: Record<string, unknown>;
  systemFingerprint?: string;
  serviceTier?: string;
}

interface Basics {
  id: string;
  created: number;
  usage: { prompt_tokens: number; completion_tokens: number } | null;
  content: string;
}

const RICH_FIELDS = ["toolCalls", "refusal", "reasoningContent", "usageDetails", "usageExtra", "systemFingerprint", "serviceTier"] as const;

function wantsRichAnswer(b: Behavior, body: Record<string, unknown>): boolean {
  const fault = b.malformed || b.oversizedBytes || b.holdUntil || b.stallAfter !== undefined || b.breakAfter !== undefined;
  if (fault) return false;
  return RICH_FIELDS.some((f) => b[f] !== undefined) || (typeof body.n === "number" && body.n > 1) || body.logprobs === true;
}

/** Splits `text` into `count` consecutive pieces (some may be empty when the text is short). */
const pieces = (text: string, count: number) =>
  Array.from({ length: count }, (_, i) => text.slice(Math.floor((i * text.length) / count), Math.floor(((i + 1) * text.length) / count)));

/** Choice i's text: the configured content for the first choice, numbered for the others. */
const choiceText = (content: string, index: number) => (index === 0 ? content : `${content} #${index + 1}`);

/** OpenAI's logprobs object for `text`, one entry per word-ish token, with `top` alternatives each. */
function logprobsFor(text: string, top: number) {
  const tokens = text.match(/\s*\S+/g) ?? [];
  const entry = (token: string, rank: number) => ({ token, logprob: -0.01 * (rank + 1), bytes: [...new TextEncoder().encode(token)] });
  return {
    content: tokens.map((token) => ({
      ...entry(token, 0),
      top_logprobs: Array.from({ length: top }, (_, r) => (r === 0 ? entry(token, 0) : entry(`${token}~${r}`, r))),
    })),
    refusal: null,
  };
}

const toolCallId = (callIndex: number, choice: number) => `call_fake_${choice}_${callIndex}`;

function richUsage(b: Behavior, usage: Basics["usage"]) {
  if (!usage) return undefined;
  return {
    ...usage,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    ...(b.usageDetails?.cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens: b.usageDetails.cached_tokens } } : {}),
    ...(b.usageDetails?.reasoning_tokens !== undefined ? { completion_tokens_details: { reasoning_tokens: b.usageDetails.reasoning_tokens } } : {}),
    ...b.usageExtra,
  };
}

/** What one rich answer is made of, read once from the behaviour and the request. */
interface Answer extends Omit<Basics, "usage"> {
  b: Behavior;
  model: unknown;
  /** Choices to write: the request's n. */
  n: number;
  /** Alternatives per token when log probabilities were asked for, else -1. */
  top: number;
  /** The usage as the provider reports it, details included; null to send none. */
  usage: Record<string, unknown> | null;
  finish: "tool_calls" | "stop";
  envelope: Record<string, string>;
}

async function richAnswer(b: Behavior, body: Record<string, unknown>, basics: Basics): Promise<Response> {
  const answer: Answer = {
    ...basics,
    b,
    model: body.model,
    n: typeof body.n === "number" && body.n > 1 ? body.n : 1,
    top: body.logprobs === true ? (typeof body.top_logprobs === "number" ? body.top_logprobs : 0) : -1,
    usage: richUsage(b, basics.usage) ?? null,
    finish: b.toolCalls ? "tool_calls" : "stop",
    envelope: {
      ...(b.serviceTier !== undefined ? { service_tier: b.serviceTier } : {}),
      ...(b.systemFingerprint !== undefined ? { system_fingerprint: b.systemFingerprint } : {}),
    },
  };
  if (b.delayMs) await sleep(b.delayMs);
  return body.stream ? sseResponse(richEvents(answer)) : Response.json(richCompletion(answer));
}

function richCompletion(a: Answer) {
  const { b } = a;
  const choices = Array.from({ length: a.n }, (_, index) => {
    const text = choiceText(a.content, index);
    const message: Record<string, unknown> = { role: "assistant", content: b.toolCalls || b.refusal ? null : text, refusal: b.refusal ?? null };
    if (b.reasoningContent !== undefined) message.reasoning_content = b.reasoningContent;
    if (b.toolCalls) {
      message.tool_calls = b.toolCalls.map((call, i) =>
        call.type === "custom"
          ? { id: toolCallId(i, index), type: "custom", custom: { name: call.name, input: call.arguments } }
          : { id: toolCallId(i, index), type: "function", function: { name: call.name, arguments: call.arguments } },
      );
    }
    const logprobs = a.top >= 0 && !b.toolCalls ? logprobsFor(b.refusal ?? text, a.top) : null;
    return { index, message, logprobs, finish_reason: a.finish };
  });
  return { id: a.id, object: "chat.completion", created: a.created, model: a.model, choices, ...a.envelope, ...(a.usage ? { usage: a.usage } : {}) };
}

/** The stream's events: a role chunk per choice, reasoning, then the answer's deltas, the finish chunks, the usage, [DONE]. */
function richEvents(a: Answer): unknown[] {
  const { b, n } = a;
  const chunks = b.chunks ?? DEFAULT.chunks;
  const events: unknown[] = [];
  const chunk = (index: number, delta: object, finishReason: string | null, extra: object = {}) => ({
    id: a.id, object: "chat.completion.chunk", created: a.created, model: a.model, ...a.envelope,
    choices: [{ index, delta, ...extra, finish_reason: finishReason }],
  });
  // Choices interleave, as OpenAI's do: the k-th piece of every choice, then the (k+1)-th.
  const eachChoice = (delta: (index: number) => object, extra: (index: number) => object = () => ({})) => {
    for (let index = 0; index < n; index++) events.push(chunk(index, delta(index), null, extra(index)));
  };
  eachChoice(() => ({ role: "assistant", content: "" }));
  if (b.reasoningContent !== undefined) for (const part of pieces(b.reasoningContent, chunks)) eachChoice(() => ({ reasoning_content: part }));
  if (b.toolCalls) {
    for (let index = 0; index < n; index++) {
      for (const [i, call] of b.toolCalls.entries()) {
        const kind = call.type === "custom" ? "custom" : "function";
        const field = kind === "custom" ? "input" : "arguments";
        events.push(chunk(index, { tool_calls: [{ index: i, id: toolCallId(i, index), type: kind, [kind]: { name: call.name, [field]: "" } }] }, null));
        for (const part of pieces(call.arguments, chunks)) events.push(chunk(index, { tool_calls: [{ index: i, [kind]: { [field]: part } }] }, null));
      }
    }
  } else if (b.refusal !== undefined) {
    for (const part of pieces(b.refusal, chunks)) eachChoice(() => ({ refusal: part }));
  } else {
    const parts = Array.from({ length: n }, (_, index) => pieces(choiceText(a.content, index), chunks));
    for (let k = 0; k < chunks; k++) {
      eachChoice((index) => ({ content: parts[index]![k]! }), (index) => (a.top >= 0 ? { logprobs: logprobsFor(parts[index]![k]!, a.top) } : {}));
    }
  }
  for (let index = 0; index < n; index++) {
    // DeepSeek style puts the usage in the last finish chunk; OpenAI's in a chunk of its own.
    const withUsage = index === n - 1 && b.usageInFinalChunk && a.usage;
    events.push({ ...chunk(index, {}, a.finish), ...(withUsage ? { usage: a.usage } : {}) });
  }
  if (a.usage && !b.usageInFinalChunk) events.push({ id: a.id, object: "chat.completion.chunk", created: a.created, model: a.model, ...a.envelope, choices: [], usage: a.usage });
  events.push("[DONE]");
  return events;
}

/** The events as SSE, one write each, a moment apart, as from a real provider. */
function sseResponse(events: unknown[]): Response {
  const encoder = new TextEncoder();
  const stream = new ReadableStream({
    async start(c) {
      try {
        for (const e of events) {
          c.enqueue(encoder.encode(`data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`));
          await sleep(1);
        }
        c.close();
      } catch {
        // The client went away mid-stream: nothing left to send.
      }
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}
