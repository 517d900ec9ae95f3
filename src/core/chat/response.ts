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

const OBJECT_CHUNK = '"object":"chat.completion.chunk"';
const FINISH = '"finish_reason"';
const MODEL = '"model":"';
const NULL_USAGE = ',"usage":null';

/**
 * A provider chunk as the client gets it, rewritten as text, when all it needs is its `model`
 * said again (and OpenAI's `"usage":null` dropped): it has choices, no usage, no finish_reason
 * yet, and `object` is already the spec's. Null when it needs `readChunk`. Most of a stream is
 * such chunks, and parsing and stringifying each one was most of the relay's cost per chunk.
 * Text search is sound here because a quote inside a JSON string is always escaped: `"usage"`
 * or `"model":"` can only be found where they are keys.
 */
export function relayedAsIs(data: string, model: Model): string | null {
  if (!data.includes(OBJECT_CHUNK) || !data.includes('"choices":[{')) return null;
  for (let at = data.indexOf(FINISH); at >= 0; at = data.indexOf(FINISH, at + FINISH.length)) {
    if (!data.startsWith(":null", at + FINISH.length)) return null;
  }
  let text = data;
  const usage = text.indexOf('"usage"');
  if (usage >= 0) {
    if (!text.startsWith(NULL_USAGE, usage - 1) || text.includes('"usage"', usage + 1)) return null;
    text = text.slice(0, usage - 1) + text.slice(usage - 1 + NULL_USAGE.length);
  }
  const key = text.indexOf(MODEL);
  if (key < 0 || text.includes(MODEL, key + 1)) return null;
  const start = key + MODEL.length;
  const end = text.indexOf('"', start);
  if (end < 0 || text.lastIndexOf("\\", end) >= start) return null;
  return `${text.slice(0, start)}${JSON.stringify(model.id).slice(1, -1)}${text.slice(end)}`;
}

/** The held-back final chunk with the usage merged in, as OpenAI's clients read it. */
export const finalChunk = (chunk: Fields, usage: Usage | null, cost: Nanos): Fields => ({ ...chunk, usage: wireUsage(usage, cost) });
