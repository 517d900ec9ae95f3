// What a provider says a request used, read in its own dialect and normalised to OpenAI's
// meaning: `completion_tokens` includes reasoning, `total_tokens` = prompt + completion,
// cached input under `prompt_tokens_details.cached_tokens`, reasoning under
// `completion_tokens_details.reasoning_tokens`. The charge and the client see the same numbers.
import type { Provider } from "../catalog.ts";
import { formatUsd, type Nanos } from "../money.ts";

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Prompt tokens read from the provider's cache (billed at the cached-input price). */
  cached_tokens: number;
  /** Completion tokens spent reasoning; part of `completion_tokens`. */
  reasoning_tokens: number;
  /** The provider's own detail objects, passed through beside the normalised counts. */
  details: { prompt: Record<string, unknown>; completion: Record<string, unknown> };
  /** Calls of provider-run tools, by tool type (a native Responses answer's `web_search_call` items and the like). */
  tool_calls?: Readonly<Record<string, number>>;
}

type Fields = Record<string, unknown>;

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const objectOr = (value: unknown): Fields => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : {});
const countOr0 = (value: unknown): number => (isCount(value) ? value : 0);

/** How each provider's usage differs from OpenAI's; sources in tests/fixtures/providers/README.md. */
interface Dialect {
  /** Reasoning tokens are reported beside `completion_tokens`, not inside it (and billed as output). */
  reasoningOutside: boolean;
  /** Where the cached prompt tokens are, beside OpenAI's `prompt_tokens_details.cached_tokens`. */
  cachedField?: string;
}

const DIALECTS: Record<Provider, Dialect> = {
  openai: { reasoningOutside: false },
  deepseek: { reasoningOutside: false, cachedField: "prompt_cache_hit_tokens" },
  moonshot: { reasoningOutside: false, cachedField: "cached_tokens" },
  xai: { reasoningOutside: true },
  meta: { reasoningOutside: false },
};

/** Counts by tool type, each a count. */
const toolCalls = (value: unknown): Record<string, number> =>
  Object.fromEntries(Object.entries(objectOr(value)).filter(([, count]) => isCount(count))) as Record<string, number>;

/** The provider-reported usage normalised, or null when it is missing or malformed. */
export function readUsage(value: unknown, provider: Provider): Usage | null {
  if (typeof value !== "object" || value === null) return null;
  const raw = value as Fields;
  if (!isCount(raw.prompt_tokens) || !isCount(raw.completion_tokens)) return null;
  const dialect = DIALECTS[provider];
  const prompt = objectOr(raw.prompt_tokens_details);
  const completion = objectOr(raw.completion_tokens_details);
  const reasoning = countOr0(completion.reasoning_tokens);
  const cached = Math.min(
    raw.prompt_tokens,
    countOr0(prompt.cached_tokens) || (dialect.cachedField ? countOr0(raw[dialect.cachedField]) : 0),
  );
  const completionTokens = raw.completion_tokens + (dialect.reasoningOutside ? reasoning : 0);
  return {
    prompt_tokens: raw.prompt_tokens,
    completion_tokens: completionTokens,
    total_tokens: raw.prompt_tokens + completionTokens,
    cached_tokens: cached,
    reasoning_tokens: Math.min(reasoning, completionTokens),
    details: { prompt, completion },
    ...(raw.tool_calls === undefined ? {} : { tool_calls: toolCalls(raw.tool_calls) }),
  };
}

/** The usage as the client sees it: normalised counts, the provider's other details, and the exact charge. */
export function wireUsage(usage: Usage | null, cost: Nanos): Fields {
  const u = usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0, reasoning_tokens: 0, details: { prompt: {}, completion: {} } };
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens,
    prompt_tokens_details: { ...u.details.prompt, cached_tokens: u.cached_tokens },
    completion_tokens_details: { ...u.details.completion, reasoning_tokens: u.reasoning_tokens },
    cost_usd: formatUsd(cost, 9),
  };
}
