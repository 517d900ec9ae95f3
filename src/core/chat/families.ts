// What each model family's API differs in from OpenAI's chat format, as data: the name of the
// completion-token ceiling, and the request fields the family rejects. A rejected field is
// left out (and named to the client) rather than failing the request. Sources per family are
// in docs/decisions.md ("OpenAI compatibility").
import type { Model } from "../catalog.ts";
import { FORWARDED_FIELDS, type ChatRequest } from "./request.ts";

type Field = (typeof FORWARDED_FIELDS)[number];

interface Quirks {
  /** The name the family uses for the completion-token ceiling. */
  tokenParam: "max_tokens" | "max_completion_tokens";
  /** Fields the family rejects or does not document. */
  rejects: readonly Field[];
}

// No catalog model speaks audio or searches the web: those fields need other OpenAI models.
const AUDIO_AND_SEARCH: readonly Field[] = ["modalities", "audio", "web_search_options"];
// Fields only OpenAI's own API documents.
const OPENAI_ONLY: readonly Field[] = [
  "store", "metadata", "service_tier", "verbosity", "prediction", "prompt_cache_key", "safety_identifier", ...AUDIO_AND_SEARCH,
];
const SAMPLING: readonly Field[] = ["temperature", "top_p", "frequency_penalty", "presence_penalty"];

// Matched against the provider's own model name, first match wins.
const FAMILY_QUIRKS: readonly { provider: Model["provider"]; pattern: RegExp; quirks: Quirks }[] = [
  {
    // GPT-5 and the o-series reason: a completion-token ceiling under its own name, only the
    // default sampling settings, no token log probabilities or predicted outputs.
    provider: "openai",
    pattern: /^(gpt-5|o\d)/,
    quirks: { tokenParam: "max_completion_tokens", rejects: [...SAMPLING, "logprobs", "top_logprobs", "logit_bias", "prediction", ...AUDIO_AND_SEARCH] },
  },
  {
    provider: "openai",
    pattern: /./,
    quirks: { tokenParam: "max_tokens", rejects: ["reasoning_effort", "verbosity", ...AUDIO_AND_SEARCH] },
  },
  {
    provider: "deepseek",
    pattern: /./,
    quirks: { tokenParam: "max_tokens", rejects: ["n", "logit_bias", "user", "parallel_tool_calls", "reasoning_effort", "seed", ...OPENAI_ONLY] },
  },
  {
    provider: "moonshot",
    pattern: /./,
    quirks: { tokenParam: "max_tokens", rejects: ["logprobs", "top_logprobs", "logit_bias", "reasoning_effort", "seed", ...OPENAI_ONLY] },
  },
  {
    provider: "xai",
    pattern: /(?<!non-)reasoning/,
    quirks: { tokenParam: "max_tokens", rejects: ["frequency_penalty", "presence_penalty", "stop", "reasoning_effort", "logit_bias", ...OPENAI_ONLY] },
  },
  {
    provider: "xai",
    pattern: /./,
    quirks: { tokenParam: "max_tokens", rejects: ["reasoning_effort", "logit_bias", ...OPENAI_ONLY] },
  },
  {
    provider: "meta",
    pattern: /./,
    quirks: { tokenParam: "max_tokens", rejects: ["n", "logprobs", "top_logprobs", "logit_bias", "frequency_penalty", "presence_penalty", "parallel_tool_calls", "reasoning_effort", "seed", ...OPENAI_ONLY] },
  },
];

const COMMON: Quirks = { tokenParam: "max_tokens", rejects: [] };

export const quirksOf = (model: Model): Quirks =>
  FAMILY_QUIRKS.find((f) => f.provider === model.provider && f.pattern.test(model.upstreamModel))?.quirks ?? COMMON;

export interface UpstreamRequest {
  body: Record<string, unknown>;
  /** The client's fields left out because the family rejects them, in request order. */
  dropped: string[];
}

/** How many completions the provider will write: `n` when the family takes it. */
export const choicesFor = (request: ChatRequest, model: Model): number =>
  quirksOf(model).rejects.includes("n") ? 1 : (request.n ?? 1);

/**
 * The body sent upstream: the client's fields the family accepts, the provider's model name,
 * the ceiling under the family's parameter name, and, for streams, a request for usage.
 */
export function upstreamBody(request: ChatRequest, model: Model, ceiling: number): UpstreamRequest {
  const { tokenParam, rejects } = quirksOf(model);
  const body: Record<string, unknown> = { model: model.upstreamModel };
  const dropped: string[] = [];
  for (const field of FORWARDED_FIELDS) {
    if (request[field] === undefined) continue;
    if (rejects.includes(field)) dropped.push(field);
    else body[field] = request[field];
  }
  body[tokenParam] = ceiling;
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return { body, dropped };
}
