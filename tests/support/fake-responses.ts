// A provider on loopback that speaks OpenAI's two dialects and Anthropic's for one scripted
// answer: the Responses API on POST /v1/responses, as documented at
// https://platform.openai.com/docs/api-reference/responses/create (the Response object) and
// https://platform.openai.com/docs/api-reference/responses-streaming (its events, each
// `event: <type>` and `data: {type, sequence_number, ...}`), Chat Completions on
// POST /v1/chat/completions, and the Messages API on POST /v1/messages (anthropic-dialect.ts).
// It records what it was sent, and the headers that carry keys and versions.
import { anthropicEvents, anthropicMessage } from "./anthropic-dialect.ts";

export interface Script {
  /** The assistant's text, or a function call instead. */
  text?: string;
  /** Chat only: reasoning before the text or the call, as DeepSeek's `reasoning_content`. */
  reasoning?: string;
  call?: { call_id: string; name: string; arguments: string };
  /** Responses only: web searches the provider ran before answering (`web_search_call` items). */
  searches?: number;
  /** Responses only: a call of a freeform `custom` tool (Codex's `apply_patch`) instead of the text. */
  custom?: { call_id: string; name: string; input: string };
  /** `input` counts every prompt token; `cached` of them were read from the cache, `cacheWrites` written to it (Anthropic only). */
  usage: { input: number; output: number; cached?: number; reasoning?: number; cacheWrites?: number };
  /** Answer this status with an OpenAI-style error body. */
  status?: number;
  /** Streams: after the first events, go silent until the client leaves. */
  stall?: boolean;
  /** Streams: after the first events, send one that is not JSON and end. */
  broken?: boolean;
  /**
   * Messages streams: after the first events, Anthropic's error event for an overloaded API and
   * end (docs.claude.com/en/docs/build-with-claude/streaming, "Error events").
   */
  overloaded?: boolean;
  /** Streams: after the first events, wait for this before sending the rest. */
  holdUntil?: Promise<unknown>;
}

/** Picks the answer from each request: its path and body. */
export type ScriptFor = (request: { path: string; body: Record<string, unknown> }) => Script;

export interface FakeResponsesProvider {
  baseUrl: string;
  /**
   * Chat completions for these upstream models answer as DeepSeek's thinking mode does when an
   * assistant turn that made tool calls comes back without its `reasoning_content`: 400.
   */
  thinking(models: readonly string[]): void;
  received: { path: string; body: Record<string, unknown>; headers?: Record<string, string | null> }[];
  /** The answer to every request from now on, or a function choosing each request's answer. */
  script(next: Script | ScriptFor): void;
  openStreams(): number;
  stop(): Promise<void>;
}

type Fields = Record<string, unknown>;

function nativeUsage(u: Script["usage"]): Fields {
  return {
    input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached ?? 0 },
    output_tokens: u.output, output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 }, total_tokens: u.input + u.output,
  };
}

// Item ids are unique per answer, as OpenAI's are: a later turn names them (`item_reference`).
function nativeItem(s: Script, serial: number): Fields {
  if (s.custom) return { id: `ctc_fake${serial}`, type: "custom_tool_call", status: "completed", ...s.custom };
  if (s.call) return { id: `fc_fake${serial}`, type: "function_call", status: "completed", ...s.call };
  return { id: `msg_fake${serial}`, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: s.text ?? "", annotations: [] }] };
}

// platform.openai.com/docs/guides/tools-web-search: each search the model ran is an output item of its own.
const searchItems = (s: Script, serial: number): Fields[] =>
  Array.from({ length: s.searches ?? 0 }, (_, i) => ({ id: `ws_fake${serial}_${i}`, type: "web_search_call", status: "completed", action: { type: "search", query: "weather" } }));

function nativeResponse(s: Script, body: Fields, status: string, serial: number): Fields {
  return {
    id: "resp_fake", object: "response", created_at: 1_741_476_542, status, error: null, incomplete_details: null,
    instructions: body.instructions ?? null, max_output_tokens: body.max_output_tokens ?? null, model: body.model,
    output: status === "completed" ? [...searchItems(s, serial), nativeItem(s, serial)] : [], parallel_tool_calls: true, previous_response_id: null,
    reasoning: { effort: null, summary: null }, store: false, temperature: 1, text: { format: { type: "text" } },
    tool_choice: "auto", tools: [], top_p: 1, truncation: "disabled",
    usage: status === "completed" ? nativeUsage(s.usage) : null, user: null, metadata: {},
  };
}

/** The documented event sequence of a streamed Response. */
function nativeEvents(s: Script, body: Fields, serial: number): Fields[] {
  const item = nativeItem(s, serial);
  const added = { ...item, status: "in_progress", ...(s.custom ? { input: "" } : s.call ? { arguments: "" } : { content: [] }) };
  const searches = searchItems(s, serial);
  const ids = { item_id: item.id, output_index: searches.length };
  const middle: Fields[] = s.custom
    ? [
        { type: "response.custom_tool_call_input.delta", ...ids, delta: s.custom.input },
        { type: "response.custom_tool_call_input.done", ...ids, input: s.custom.input },
      ]
    : s.call
    ? [
        { type: "response.function_call_arguments.delta", ...ids, delta: s.call.arguments },
        { type: "response.function_call_arguments.done", ...ids, arguments: s.call.arguments },
      ]
    : [
        { type: "response.content_part.added", ...ids, content_index: 0, part: { type: "output_text", text: "", annotations: [] } },
        ...(s.text ?? "").split(" ").map((word, i) => ({ type: "response.output_text.delta", ...ids, content_index: 0, delta: i ? ` ${word}` : word })),
        { type: "response.output_text.done", ...ids, content_index: 0, text: s.text },
        { type: "response.content_part.done", ...ids, content_index: 0, part: { type: "output_text", text: s.text, annotations: [] } },
      ];
  return [
    { type: "response.created", response: nativeResponse(s, body, "in_progress", serial) },
    { type: "response.in_progress", response: nativeResponse(s, body, "in_progress", serial) },
    ...searches.flatMap((search, i) => [
      { type: "response.output_item.added", output_index: i, item: { ...search, status: "in_progress" } },
      { type: "response.output_item.done", output_index: i, item: search },
    ]),
    { type: "response.output_item.added", output_index: searches.length, item: added },
    ...middle,
    { type: "response.output_item.done", output_index: searches.length, item },
    { type: "response.completed", response: nativeResponse(s, body, "completed", serial) },
  ].map((event, sequence_number) => ({ ...event, sequence_number }));
}

const chatUsage = (u: Script["usage"]): Fields => ({
  prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output,
  prompt_tokens_details: { cached_tokens: u.cached ?? 0 }, completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
});

const toolCall = (call: NonNullable<Script["call"]>) => ({ id: call.call_id, type: "function", function: { name: call.name, arguments: call.arguments } });

function chatCompletion(s: Script, body: Fields): Fields {
  const reasoning = s.reasoning ? { reasoning_content: s.reasoning } : {};
  const message = s.call ? { role: "assistant", content: null, ...reasoning, tool_calls: [toolCall(s.call)] } : { role: "assistant", content: s.text, ...reasoning };
  return {
    id: "chatcmpl-fake", object: "chat.completion", created: 1_741_476_542, model: body.model,
    choices: [{ index: 0, message, finish_reason: s.call ? "tool_calls" : "stop" }], usage: chatUsage(s.usage),
  };
}

function chatChunks(s: Script, body: Fields): Fields[] {
  const chunk = (delta: Fields, finish: string | null) => ({
    id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_741_476_542, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const deltas: Fields[] = s.call
    ? [
        { role: "assistant", content: null }, ...(s.reasoning ? [{ reasoning_content: s.reasoning }] : []),
        { tool_calls: [{ index: 0, ...toolCall({ ...s.call, arguments: "" }) }] }, { tool_calls: [{ index: 0, function: { arguments: s.call.arguments } }] },
      ]
    : [{ role: "assistant", content: "" }, ...(s.reasoning ? [{ reasoning_content: s.reasoning }] : []), ...(s.text ?? "").split(" ").map((word, i) => ({ content: i ? ` ${word}` : word }))];
  return [
    ...deltas.map((d) => chunk(d, null)),
    chunk({}, s.call ? "tool_calls" : "stop"),
    { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_741_476_542, model: body.model, choices: [], usage: chatUsage(s.usage) },
  ];
}

// DeepSeek's thinking mode (api-docs.deepseek.com/guides/thinking_mode, "Tool Calls"): "For turns
// that do perform tool calls, the reasoning_content must be fully passed back to the API in all
// subsequent requests. If your code does not correctly pass back reasoning_content, the API will
// return a 400 error." The body is the one DeepSeek answers (as its users report it verbatim).
const REASONING_NOT_BACK = {
  error: { message: "The reasoning_content in the thinking mode must be passed back to the API.", type: "invalid_request_error", param: null, code: "invalid_request_error" },
};

const reasoningMissing = (body: Fields): boolean =>
  ((body.messages as Fields[] | undefined) ?? []).some(
    (m) => m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0 && !(typeof m.reasoning_content === "string" && m.reasoning_content.length > 0),
  );

export function startFakeResponsesProvider(): FakeResponsesProvider {
  let script: Script | ScriptFor = { text: "Hello there", usage: { input: 10, output: 2 } };
  let thinkingModels: readonly string[] = [];
  let open = 0;
  const received: FakeResponsesProvider["received"] = [];
  const encoder = new TextEncoder();

  function stream(request: Request, events: string[], s: Script): Response {
    open++;
    let counted = true;
    const done = () => {
      if (counted) open--;
      counted = false;
    };
    return new Response(
      new ReadableStream({
        async start(c) {
          try {
            const cut = s.stall || s.broken || s.holdUntil || s.overloaded;
            c.enqueue(encoder.encode(events.slice(0, cut ? 2 : events.length).join("")));
            if (s.holdUntil) {
              await s.holdUntil;
              c.enqueue(encoder.encode(events.slice(2).join("")));
            }
            if (s.broken) c.enqueue(encoder.encode("data: {not json\n\n"));
            if (s.overloaded) c.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`));
            if (s.stall) await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
            else c.close();
          } finally {
            done();
          }
        },
        cancel: done,
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const body = (await request.json()) as Fields;
      if (path === "/v1/chat/completions" && thinkingModels.includes(String(body.model)) && reasoningMissing(body)) {
        received.push({ path, body });
        return Response.json(REASONING_NOT_BACK, { status: 400 });
      }
      const s = typeof script === "function" ? script({ path, body }) : script;
      if (path === "/v1/messages") {
        const headers = { "x-api-key": request.headers.get("x-api-key"), "anthropic-version": request.headers.get("anthropic-version") };
        received.push({ path, body, headers });
        if (s.status) return Response.json({ type: "error", error: { type: "api_error", message: "fake failure" } }, { status: s.status });
        return body.stream ? stream(request, anthropicEvents(s, body), s) : Response.json(anthropicMessage(s, body));
      }
      received.push({ path, body });
      if (s.status) return Response.json({ error: { message: "fake failure", type: "server_error" } }, { status: s.status });
      const native = path === "/v1/responses";
      const serial = received.length;
      if (!body.stream) return Response.json(native ? nativeResponse(s, body, "completed", serial) : chatCompletion(s, body));
      const events = native
        ? nativeEvents(s, body, serial).map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
        : [...chatChunks(s, body).map((e) => `data: ${JSON.stringify(e)}\n\n`), "data: [DONE]\n\n"];
      return stream(request, events, s);
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    received,
    thinking: (models) => {
      thinkingModels = models;
    },
    script: (next) => {
      script = next;
    },
    openStreams: () => open,
    stop: () => server.stop(true),
  };
}
