import { FORWARDED_FIELDS, type ChatRequest } from "./request.ts";
import type { Model } from "../catalog.ts";

/** What a model family's API differs in from the common OpenAI chat format. */
interface Quirks {
  /** The name the family uses for the completion-token ceiling. */
  tokenParam: "max_tokens" | "max_completion_tokens";
  /** Sampling fields the family rejects; they are left out rather than failing the request. */
  unsupported: readonly string[];
}

const COMMON: Quirks = { tokenParam: "max_tokens", unsupported: [] };

// Matched against the provider's own model name, first match wins.
const FAMILY_QUIRKS: readonly { provider: Model["provider"]; pattern: RegExp; quirks: Quirks }[] = [
  {
    // GPT-5 and the o-series are reasoning models: a completion-token ceiling under its own
    // name, and only the default sampling settings.
    provider: "openai",
    pattern: /^(gpt-5|o\d)/,
    quirks: { tokenParam: "max_completion_tokens", unsupported: ["temperature", "top_p", "frequency_penalty", "presence_penalty"] },
  },
  {
    provider: "xai",
    pattern: /reasoning/,
    quirks: { tokenParam: "max_tokens", unsupported: ["frequency_penalty", "presence_penalty", "stop"] },
  },
];

export const quirksOf = (model: Model): Quirks =>
  FAMILY_QUIRKS.find((f) => f.provider === model.provider && f.pattern.test(model.upstreamModel))?.quirks ?? COMMON;

/**
 * The body sent upstream: the spec's fields the family accepts, the provider's model name,
 * the ceiling under the family's parameter name, and, for streams, a request for usage.
 */
export function upstreamBody(request: ChatRequest, model: Model, ceiling: number): Record<string, unknown> {
  const quirks = quirksOf(model);
  const body: Record<string, unknown> = { model: model.upstreamModel };
  for (const field of FORWARDED_FIELDS) {
    if (request[field] !== undefined && !quirks.unsupported.includes(field)) body[field] = request[field];
  }
  body[quirks.tokenParam] = ceiling;
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}
