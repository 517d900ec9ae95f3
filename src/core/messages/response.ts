// The Message object (docs.claude.com/en/api/messages, "Response") as the client gets it: built
// from a chat completion for translated providers, or the provider's own with the public model;
// either way `usage` in Anthropic's meaning (input_tokens without the cache's reads and writes)
// and carrying `cost_usd`, the exact charge.

import type { ReasoningSeal } from "../reasoning-seal.ts";

type Fields = Record<string, unknown>;
const objectOr = (value: unknown): Fields => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : {});
const count = (value: unknown): number => (Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : 0);

/**
 * Anthropic's usage in chat's names, for `readUsage` to normalise: the prompt is every input
 * token (uncached, cache writes and cache reads), the cache reads its cached part. Cache writes
 * stay with the uncached input, charged at the input price.
 */
export function chatUsageOf(anthropic: unknown): Fields | undefined {
  const u = objectOr(anthropic);
  if (!("output_tokens" in u)) return undefined;
  const cached = count(u.cache_read_input_tokens);
  return {
    prompt_tokens: count(u.input_tokens) + count(u.cache_creation_input_tokens) + cached,
    completion_tokens: count(u.output_tokens),
    prompt_tokens_details: { cached_tokens: cached },
  };
}

/**
 * The gateway's normalised usage (`wireUsage`, with `cost_usd`) in Anthropic's names. `native`
 * is the provider's own usage where it spoke Anthropic's API: its cache-write count is kept.
 */
export function messagesUsage(wire: unknown, native?: unknown): Fields {
  const u = objectOr(wire);
  const cached = count(objectOr(u.prompt_tokens_details).cached_tokens);
  const written = count(objectOr(native).cache_creation_input_tokens);
  return {
    ...objectOr(native),
    input_tokens: count(u.prompt_tokens) - cached - written,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
    output_tokens: count(u.completion_tokens),
    cost_usd: u.cost_usd,
  };
}

const STOP_REASONS: Record<string, string> = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use", function_call: "tool_use", content_filter: "refusal" };

/** A chat finish_reason as a `stop_reason`. */
export const stopReasonOf = (finishReason: unknown): string => STOP_REASONS[String(finishReason)] ?? "end_turn";

/** A Message id from a chat completion's id, so that the two can be told apart and matched in logs. */
export const messageId = (chatId: unknown): string => `msg_${String(chatId ?? crypto.randomUUID()).replace(/^chatcmpl-/, "")}`;

/** A tool call's arguments as the `input` object a `tool_use` block carries (a model's malformed JSON as `{}`). */
export function toolInput(args: unknown): Fields {
  try {
    return objectOr(JSON.parse(String(args ?? "{}")));
  } catch {
    return {};
  }
}

/**
 * A thinking block for a translated model's reasoning: its `signature` is the text sealed, which
 * brings it back when the client returns the block (empty where the deployment seals nothing).
 */
export const thinkingBlock = (thinking: string, seal: ReasoningSeal): Fields => ({ type: "thinking", thinking, signature: seal.seal(thinking) ?? "" });

/** A chat completion (with the gateway's wire usage) as a Message. */
export function fromCompletion(completion: Fields, model: string, seal: ReasoningSeal): Fields {
  const choice = objectOr((completion.choices as unknown[] | undefined)?.[0]);
  const message = objectOr(choice.message);
  const content: Fields[] = [];
  if (typeof message.reasoning_content === "string" && message.reasoning_content) content.push(thinkingBlock(message.reasoning_content, seal));
  if (typeof message.content === "string" && message.content) content.push({ type: "text", text: message.content });
  if (typeof message.refusal === "string" && message.refusal) content.push({ type: "text", text: message.refusal });
  for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as Fields[]) : []) {
    const fn = objectOr(call.function);
    content.push({ type: "tool_use", id: String(call.id), name: String(fn.name), input: toolInput(fn.arguments) });
  }
  return {
    id: messageId(completion.id),
    type: "message",
    role: "assistant",
    content,
    model,
    stop_reason: stopReasonOf(choice.finish_reason),
    stop_sequence: null,
    usage: messagesUsage(completion.usage),
  };
}

/** A provider's own Message, with the public model and the charged usage. */
export const fromNative = (message: Fields, model: string, wire: unknown): Fields => ({ ...message, model, usage: messagesUsage(wire, message.usage) });
