// The client's view of a provider's answer: its body as the provider sent it but for the
// public model ID, the object type and the usage.
import type { Model } from "../catalog.ts";
import { readUsage, type Usage } from "./usage.ts";

export interface Completion {
  response: Record<string, unknown>;
  usage: Usage | null;
}

/** The spec's non-streaming response from the provider's, or null when it is not a completion. */
export function toCompletion(upstream: unknown, model: Model, now: number): Completion | null {
  if (typeof upstream !== "object" || upstream === null) return null;
  const body = upstream as Record<string, unknown>;
  if (!Array.isArray(body.choices)) return null;
  const usage = readUsage(body.usage);
  return {
    usage,
    response: {
      id: typeof body.id === "string" ? body.id : `chatcmpl-${crypto.randomUUID()}`,
      object: "chat.completion",
      created: Number.isInteger(body.created) ? body.created : Math.floor(now / 1000),
      model: model.id,
      choices: body.choices,
      usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    },
  };
}

/** One parsed stream chunk, read for what the relay needs and reshaped for the client. */
export interface StreamChunk {
  /** The chunk as the client gets it (null for a usage-only chunk, which is not relayed). */
  chunk: Record<string, unknown> | null;
  usage: Usage | null;
  /** It carries a finish_reason: the relay holds it back until the usage is known. */
  final: boolean;
}

/** Reads a provider chunk and reshapes it in place (it is the caller's own parse; its keys keep their order). */
export function readChunk(chunk: Record<string, unknown>, model: Model): StreamChunk {
  const usage = readUsage(chunk.usage);
  const choices = Array.isArray(chunk.choices) ? (chunk.choices as { finish_reason?: unknown }[]) : [];
  if (choices.length === 0) return { chunk: null, usage, final: false };
  chunk.object = "chat.completion.chunk";
  chunk.model = model.id;
  if ("usage" in chunk) delete chunk.usage;
  return { chunk, usage, final: choices.some((c) => c.finish_reason != null) };
}
