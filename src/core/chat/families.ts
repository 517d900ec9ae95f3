// What each model family's API differs in from OpenAI's chat format, as data: the name of the
// completion-token ceiling, and the request fields the family rejects. A rejected field is
// left out (and named to the client) rather than failing the request.
import type { Model } from "../catalog.ts";
import { FORWARDED_FIELDS, type ChatRequest } from "./request.ts";

type Field = (typeof FORWARDED_FIELDS)[number];

interface Quirks {
  /** The name the family uses for the completion-token ceiling. */
  tokenParam: "max_tokens" | "max_completion_tokens";
  /** Fields the family rejects (or, for fields beyond the spec's table, does not document). */
  rejects: readonly Field[];
  /** Fields the family takes only with `reasoning_effort: "none"` (GPT-5.1 and later). */
  onlyWithoutReasoning?: readonly Field[];
}

// Fields only OpenAI's platform documents: no other provider's chat API lists them.
const OPENAI_ONLY: readonly Field[] = ["metadata", "store", "service_tier", "verbosity", "modalities", "audio", "prediction", "logit_bias"];
// OpenAI's reasoning models: no penalties, stop or token biases; audio, predicted outputs and
// web search belong to other OpenAI models (-audio-preview, -search-preview, GPT-4o/4.1).
const OPENAI_REASONING: readonly Field[] = [
  "frequency_penalty", "presence_penalty", "logit_bias", "stop", "modalities", "audio", "prediction", "web_search_options",
];
const SAMPLING: readonly Field[] = ["temperature", "top_p", "logprobs", "top_logprobs"];
const BEYOND_DEEPSEEK_DOCS: readonly Field[] = [
  ...OPENAI_ONLY, "n", "user", "safety_identifier", "prompt_cache_key", "parallel_tool_calls", "web_search_options", "seed",
];
const BEYOND_XAI_DOCS: readonly Field[] = [...OPENAI_ONLY, "safety_identifier", "prompt_cache_key", "web_search_options"];

// Matched against the provider's own model name, first match wins; a provider's last row is
// its fallback. Sources: docs/decisions.md, "OpenAI compatibility".
const FAMILY_QUIRKS: readonly { provider: Model["provider"]; pattern: RegExp; quirks: Quirks }[] = [
  // GPT-5 (2025-08): a completion-token ceiling under its own name, default sampling only.
  { provider: "openai", pattern: /^gpt-5(-\d{4}-\d{2}-\d{2})?$/, quirks: { tokenParam: "max_completion_tokens", rejects: [...OPENAI_REASONING, ...SAMPLING] } },
  // GPT-5.1 and later take sampling and log probabilities only when they do not reason.
  { provider: "openai", pattern: /^gpt-5/, quirks: { tokenParam: "max_completion_tokens", rejects: OPENAI_REASONING, onlyWithoutReasoning: SAMPLING } },
  { provider: "openai", pattern: /^o\d/, quirks: { tokenParam: "max_completion_tokens", rejects: [...OPENAI_REASONING, ...SAMPLING, "verbosity", "parallel_tool_calls"] } },
  { provider: "openai", pattern: /./, quirks: { tokenParam: "max_tokens", rejects: ["reasoning_effort", "verbosity", "modalities", "audio", "web_search_options"] } },
  { provider: "deepseek", pattern: /^deepseek-chat$/, quirks: { tokenParam: "max_tokens", rejects: [...BEYOND_DEEPSEEK_DOCS, "reasoning_effort"] } },
  // Thinking models: sampling is accepted and ignored; log probabilities are an error.
  { provider: "deepseek", pattern: /./, quirks: { tokenParam: "max_tokens", rejects: [...BEYOND_DEEPSEEK_DOCS, "logprobs", "top_logprobs"] } },
  // Kimi K2.5 and K2.6 fix their sampling ("cannot be modified"): a changed value is a 400.
  {
    provider: "moonshot",
    pattern: /./,
    quirks: {
      tokenParam: "max_tokens",
      rejects: [...OPENAI_ONLY, "n", "temperature", "top_p", "frequency_penalty", "presence_penalty", "user", "parallel_tool_calls", "reasoning_effort", "web_search_options", "seed"],
    },
  },
  // Grok 4.3 has an effort dial; the other reasoning models reject it, and all reject penalties and stop.
  { provider: "xai", pattern: /^grok-4\.3/, quirks: { tokenParam: "max_tokens", rejects: [...BEYOND_XAI_DOCS, "frequency_penalty", "presence_penalty", "stop"] } },
  { provider: "xai", pattern: /(?<!non-)reasoning/, quirks: { tokenParam: "max_tokens", rejects: [...BEYOND_XAI_DOCS, "frequency_penalty", "presence_penalty", "stop", "reasoning_effort"] } },
  { provider: "xai", pattern: /./, quirks: { tokenParam: "max_tokens", rejects: [...BEYOND_XAI_DOCS, "reasoning_effort"] } },
  // Llama API documents few of OpenAI's fields beyond the spec's; the spec's own are forwarded.
  {
    provider: "meta",
    pattern: /./,
    quirks: { tokenParam: "max_tokens", rejects: [...OPENAI_ONLY, "n", "logprobs", "top_logprobs", "safety_identifier", "prompt_cache_key", "parallel_tool_calls", "reasoning_effort", "web_search_options"] },
  },
];

// Providers whose chat API takes an assistant's `reasoning_content` back in later turns (DeepSeek
// wants it beside tool calls in thinking mode, else a 400: api-docs.deepseek.com/guides/thinking_mode;
// Kimi's thinking models likewise). The others are not sent a field they do not document.
const TAKES_REASONING_BACK: readonly Model["provider"][] = ["deepseek", "moonshot"];

export const takesReasoningBack = (provider: Model["provider"]): boolean => TAKES_REASONING_BACK.includes(provider);

/** `body` without the assistant messages' `reasoning_content` (a translated door restores it for every provider first). */
export function withoutReasoningBack(body: Record<string, unknown>): Record<string, unknown> {
  const messages = body.messages as Record<string, unknown>[];
  if (!messages.some((m) => "reasoning_content" in m)) return body;
  return { ...body, messages: messages.map(({ reasoning_content: _reasoning, ...message }) => message) };
}

const COMMON: Quirks = { tokenParam: "max_tokens", rejects: [] };

// Per catalog model object (the catalog cache hands out the same ones until it reloads): every request asks twice.
const quirksByModel = new WeakMap<Model, Quirks>();

export function quirksOf(model: Model): Quirks {
  let quirks = quirksByModel.get(model);
  if (quirks === undefined) {
    quirks = FAMILY_QUIRKS.find((f) => f.provider === model.provider && f.pattern.test(model.upstreamModel))?.quirks ?? COMMON;
    quirksByModel.set(model, quirks);
  }
  return quirks;
}

/** The function and custom tools; one of any other type (chat completions run none) is left out and named. */
function chatTools(tools: NonNullable<ChatRequest["tools"]>, dropped: string[]): NonNullable<ChatRequest["tools"]> {
  if (tools.every((tool) => tool.type === "function" || tool.type === "custom")) return tools;
  for (const tool of tools) if (tool.type !== "function" && tool.type !== "custom" && !dropped.includes(`tools.${tool.type}`)) dropped.push(`tools.${tool.type}`);
  return tools.filter((tool) => tool.type === "function" || tool.type === "custom");
}

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
  const { tokenParam, rejects, onlyWithoutReasoning = [] } = quirksOf(model);
  const reasons = request.reasoning_effort !== "none";
  const body: Record<string, unknown> = { model: model.upstreamModel };
  const dropped: string[] = [];
  for (const field of FORWARDED_FIELDS) {
    if (request[field] === undefined) continue;
    if (rejects.includes(field) || (reasons && onlyWithoutReasoning.includes(field))) dropped.push(field);
    else body[field] = request[field];
  }
  if (body.tools) {
    const tools = chatTools(body.tools as NonNullable<ChatRequest["tools"]>, dropped);
    if (tools.length > 0) body.tools = tools;
    else {
      // No tools left: providers refuse an empty list, and a choice among none. An empty list
      // the client sent is named as dropped itself (a list of hosted tools names each of them).
      if ((body.tools as unknown[]).length === 0) dropped.push("tools");
      delete body.tools;
      if (body.tool_choice !== undefined) dropped.push("tool_choice");
      delete body.tool_choice;
    }
  }
  body[tokenParam] = ceiling;
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return { body, dropped };
}
