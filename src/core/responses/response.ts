// The Response object (platform.openai.com/docs/api-reference/responses/object) as the client
// gets it: built from a chat completion for translated providers, and the usage in the
// Responses API's names with the exact charge, for both translated and native answers.
import { hostedCalls } from "../chat/hosted-tools.ts";
import type { ReasoningSeal } from "../reasoning-seal.ts";
import type { ResponsesRequest } from "./request.ts";
import { callItem, callItemId, chatToolsOf } from "./tool-names.ts";

type Fields = Record<string, unknown>;
const objectOr = (value: unknown): Fields => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : {});

/** The gateway's normalised chat usage (`wireUsage`, with `cost_usd`) in the Responses API's names. */
export function responsesUsage(wire: unknown): Fields {
  const u = objectOr(wire);
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: u.prompt_tokens_details,
    output_tokens: u.completion_tokens,
    output_tokens_details: u.completion_tokens_details,
    total_tokens: u.total_tokens,
    cost_usd: u.cost_usd,
  };
}

/**
 * A native answer's usage in chat's names, for `readUsage` to normalise in the provider's
 * dialect, with the calls of provider-run tools among its `output` items.
 */
export function chatUsageOf(native: unknown, output?: unknown): Fields | undefined {
  if (typeof native !== "object" || native === null) return undefined;
  const u = native as Fields;
  const calls = hostedCalls(output);
  return {
    prompt_tokens: u.input_tokens,
    completion_tokens: u.output_tokens,
    prompt_tokens_details: objectOr(u.input_tokens_details),
    completion_tokens_details: objectOr(u.output_tokens_details),
    ...(calls ? { tool_calls: calls } : {}),
  };
}

/** A chat finish_reason as the Response's status and incomplete_details. */
export function outcomeOf(finishReason: unknown): { status: string; incomplete_details: Fields | null } {
  if (finishReason === "length") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (finishReason === "content_filter") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

/** The request's settings as a Response echoes them. */
function echoed(request: ResponsesRequest): Fields {
  return {
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    // Whether the gateway keeps this response: the request's `store` as the route settled it.
    store: request.store === true,
    temperature: request.temperature ?? null,
    text: { format: request.text?.format ?? { type: "text" }, ...(request.text?.verbosity ? { verbosity: request.text.verbosity } : {}) },
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: "disabled",
    user: request.user ?? null,
  };
}

export interface ResponseHead {
  id: string;
  created_at: number;
  model: string;
}

/** A Response object: its head, the request's echo, its status, output and usage. */
export function responseObject(head: ResponseHead, request: ResponsesRequest, rest: { status: string; output: Fields[]; usage: Fields | null; incomplete_details?: Fields | null; error?: Fields | null }): Fields {
  return { id: head.id, object: "response", created_at: head.created_at, status: rest.status, error: rest.error ?? null, incomplete_details: rest.incomplete_details ?? null, model: head.model, output: rest.output, ...echoed(request), usage: rest.usage };
}

/** An assistant message item holding one `output_text` part. */
export const messageItem = (id: string, text: string, status = "completed"): Fields => ({
  id, type: "message", status, role: "assistant", content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
});

/**
 * What a chat provider returns as `reasoning_content` (DeepSeek, Kimi, Grok): the raw reasoning,
 * as OpenAI's `reasoning_text`, and, when sealed (`encrypted`), the value that brings it back.
 */
export const reasoningItem = (id: string, text: string, status = "completed", encrypted: string | null = null): Fields => ({
  id, type: "reasoning", status, summary: [], content: [{ type: "reasoning_text", text }], ...(encrypted === null ? {} : { encrypted_content: encrypted }),
});

/** Whether the client asked for reasoning it can send back (`include`, as OpenAI's stateless clients do). */
export const wantsSealedReasoning = (request: Pick<ResponsesRequest, "include">): boolean => request.include?.includes("reasoning.encrypted_content") === true;

/** A reasoning item's seal for `request`: the text sealed when asked for, else none. */
export const sealFor = (request: Pick<ResponsesRequest, "include">, seal: ReasoningSeal, text: string): string | null =>
  wantsSealedReasoning(request) ? seal.seal(text) : null;

/** The output items of a chat completion's first choice: its reasoning, text, refusal and tool calls. */
function outputOf(message: Fields, suffix: string, request: ResponsesRequest, seal: ReasoningSeal): Fields[] {
  const output: Fields[] = [];
  const reasoning = message.reasoning_content;
  if (typeof reasoning === "string" && reasoning.length > 0) output.push(reasoningItem(`rs_${suffix}`, reasoning, "completed", sealFor(request, seal, reasoning)));
  if (typeof message.content === "string" && message.content.length > 0) output.push(messageItem(`msg_${suffix}`, message.content));
  if (typeof message.refusal === "string" && message.refusal.length > 0) {
    output.push({ id: `msg_${suffix}_refusal`, type: "message", status: "completed", role: "assistant", content: [{ type: "refusal", refusal: message.refusal }] });
  }
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Fields[]) : [];
  const tools = chatToolsOf(request.tools);
  calls.forEach((call, i) => {
    const fn = objectOr(call.function);
    const tool = tools.named(String(fn.name ?? ""));
    output.push(callItem(callItemId(tool, `${suffix}_${i}`), { call_id: String(call.id ?? `call_${suffix}_${i}`), arguments: String(fn.arguments ?? "") }, tool, "completed"));
  });
  return output;
}

/** The Response `id` for a chat completion as the chat pipeline answers it (public model, usage with its charge). */
export function fromCompletion(completion: Fields, request: ResponsesRequest, id: string, seal: ReasoningSeal): Fields {
  const suffix = id.slice("resp_".length);
  const choice = objectOr((completion.choices as unknown[] | undefined)?.[0]);
  return responseObject(
    { id, created_at: Number(completion.created), model: String(completion.model) },
    request,
    { ...outcomeOf(choice.finish_reason), output: outputOf(objectOr(choice.message), suffix, request, seal), usage: responsesUsage(completion.usage) },
  );
}

/**
 * A native Response as the client gets it: the gateway's id (the provider kept nothing under
 * its own), the public model ID, the request's stored state and the usage with its charge.
 */
export const fromNative = (native: Fields, request: ResponsesRequest, head: { id: string; model: string }, wire: unknown): Fields => ({
  ...native,
  ...head,
  store: request.store === true,
  previous_response_id: request.previous_response_id ?? null,
  ...(wire === undefined ? {} : { usage: responsesUsage(wire) }),
});
