// The client's view of a provider's answer: its body and chunks as the provider sent them,
// but for the public model ID, the object type and the normalised usage with its charge.
import type { Model } from "../catalog.ts";
import { AppError } from "../errors.ts";
import type { Nanos } from "../money.ts";
import { readUsage, wireUsage, type Usage } from "./usage.ts";

type Fields = Record<string, unknown>;

export interface Completion {
  /** The provider's body, to be answered once its charge is known (`completionResponse`). */
  body: Fields;
  usage: Usage | null;
}

/** The provider's non-streamed answer read for its usage, or null when it is not a completion. */
export function readCompletion(upstream: unknown, model: Model): Completion | null {
  if (typeof upstream !== "object" || upstream === null || Array.isArray(upstream)) return null;
  const body = upstream as Fields;
  if (!Array.isArray(body.choices)) return null;
  return { body, usage: readUsage(body.usage, model.provider) };
}

/**
 * The response the client gets: every field the provider sent, in its order, with `model` the
 * public ID, `object` the spec's, and `usage` normalised and carrying `cost_usd`.
 */
export function completionResponse(completion: Completion, model: Model, cost: Nanos, now: number): Fields {
  const { body } = completion;
  return {
    ...body,
    id: typeof body.id === "string" ? body.id : `chatcmpl-${crypto.randomUUID()}`,
    object: "chat.completion",
    created: Number.isInteger(body.created) ? body.created : Math.floor(now / 1000),
    model: model.id,
    usage: wireUsage(completion.usage, cost),
  };
}

/** One parsed stream chunk, read for what the relay needs and reshaped for the client. */
interface StreamChunk {
  /** The chunk as the client gets it (null for a usage-only chunk, which is not relayed). */
  chunk: Fields | null;
  usage: Usage | null;
  /** It carries a finish_reason: the relay holds the last one back until the usage is known. */
  final: boolean;
}

/**
 * Reads a provider chunk and reshapes it in place (it is the caller's own parse; its keys keep
 * their order). Usage leaves the chunk wherever the provider put it (Moonshot: in the choice).
 */
export function readChunk(chunk: Fields, model: Model): StreamChunk {
  // An error event in place of a chunk (`data: {"error": {...}}`): the provider gave up mid-stream.
  if (!Array.isArray(chunk.choices) && typeof chunk.error === "object" && chunk.error !== null) {
    throw new AppError("provider_error", "Upstream provider request failed");
  }
  const choices = Array.isArray(chunk.choices) ? (chunk.choices as Fields[]) : [];
  let usage = readUsage(chunk.usage, model.provider);
  if ("usage" in chunk) delete chunk.usage;
  for (const choice of choices) {
    if (typeof choice !== "object" || choice === null || !("usage" in choice)) continue;
    usage ??= readUsage(choice.usage, model.provider);
    delete choice.usage;
  }
  if (choices.length === 0) return { chunk: null, usage, final: false };
  chunk.object = "chat.completion.chunk";
  chunk.model = model.id;
  return { chunk, usage, final: choices.some((c) => c?.finish_reason != null) };
}

/** The held-back final chunk with the usage merged in (the spec's events). */
export const finalChunk = (chunk: Fields, usage: Usage, cost: Nanos): Fields => ({ ...chunk, usage: wireUsage(usage, cost) });

/**
 * OpenAI's usage chunk, for a client that set `stream_options.include_usage`: the final chunk's
 * identity, no choices, and the usage (platform.openai.com/docs/api-reference/chat-streaming).
 */
export const usageChunk = (final: Fields, usage: Usage, cost: Nanos): Fields => ({
  id: final.id,
  object: "chat.completion.chunk",
  created: final.created,
  model: final.model,
  ...(final.system_fingerprint === undefined ? {} : { system_fingerprint: final.system_fingerprint }),
  choices: [],
  usage: wireUsage(usage, cost),
});
