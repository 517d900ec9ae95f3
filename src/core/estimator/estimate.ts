import type { Model } from "../catalog.ts";
import { readUsageHints, type UsageHints } from "./hints.ts";
import { readVolume } from "./volume.ts";
import type { EstimatorMessage } from "./request.ts";
import { nanos, requestCost, type Nanos } from "../money.ts";
import { CREDIT_PACKS, type CreditPack } from "../checkout/packs.ts";

/** A month of usage, for the monthly cost. */
export const DAYS_PER_MONTH = 30;

/** Tokens per request: the defaults, and what each hint raises or lowers them to. */
const TOKENS_PER_REQUEST = {
  input: { default: 1_000, code: 3_000, documents: 8_000 },
  output: { default: 500, code: 1_500, extraction: 200 },
} as const;

type Intent = "cheap" | "reasoning" | "balanced";

/**
 * The share of each request's input assumed read from the provider's cache when the text says a
 * long prompt repeats (a system prompt, an agent's history): only the new turn is fresh.
 */
export const CACHED_INPUT_SHARE = { percent: 80 } as const;

/**
 * The model each intent recommends (the spec's hint table), then stand-ins in order for when
 * it is disabled or missing from the live catalog.
 */
export const MODEL_PREFERENCES: Record<Intent, readonly string[]> = {
  cheap: ["llama-4-scout", "gpt-5.4-nano", "gpt-4.1-nano", "deepseek-v4-flash"],
  reasoning: ["gpt-5.5", "gpt-5.4", "gpt-5", "grok-4-20-reasoning"],
  balanced: ["gpt-5.4-mini", "gpt-4.1-mini", "deepseek-v3.2", "kimi-k2.5"],
};

export interface PricedModel {
  model: Model;
  /** What the gateway would charge for one request of the estimated size, rounded up as billing does. */
  perRequest: Nanos;
  /** DAYS_PER_MONTH × requests per day × perRequest. */
  monthly: Nanos;
  /** The month without caching, where the estimate assumes cache reads; else equal to `monthly`. */
  monthlyUncached: Nanos;
}

export interface PackAdvice {
  pack: CreditPack;
  /** Packs needed a month: 1 when one pack covers it, else that many of the largest. */
  count: number;
}

export interface Estimate {
  hints: UsageHints;
  intent: Intent;
  /** The intent's first choice, whether or not the catalog has it. */
  preferredModelId: string;
  requestsPerDay: number;
  /** How the volume was worked out from the text, when it took more than one number (see VolumeReading). */
  volumeWorking: string | null;
  inputTokens: number;
  /** Of the input, the tokens assumed read from the cache (0 unless the prompt repeats). */
  cachedTokens: number;
  outputTokens: number;
  recommended: PricedModel;
  /** When the text asks for both low cost and reasoning: the cheap pick, priced, as the budget option. */
  budgetOption: PricedModel | null;
  pack: PackAdvice;
}

/**
 * "reason"/"complex" outranks "cheap"/"high volume": a model too weak for the task costs more
 * in failed answers than it saves, and the budget option is still priced in the answer.
 */
const intentOf = (hints: UsageHints): Intent => (hints.reasoning ? "reasoning" : hints.cheap ? "cheap" : "balanced");

function tokensPerRequest(hints: UsageHints): { inputTokens: number; outputTokens: number } {
  const { input, output } = TOKENS_PER_REQUEST;
  return {
    inputTokens: hints.documents ? input.documents : hints.code ? input.code : input.default,
    // Extraction is the more specific statement about output, so it wins over code.
    outputTokens: hints.extraction ? output.extraction : hints.code ? output.code : output.default,
  };
}

/** The smallest pack whose credits cover a month, else as many of the largest as it takes. */
export function recommendPack(monthly: Nanos): PackAdvice {
  const packs = Object.values(CREDIT_PACKS).toSorted((a, b) => (a.credits < b.credits ? -1 : 1));
  const covering = packs.find((p) => p.credits >= monthly);
  if (covering) return { pack: covering, count: 1 };
  const largest = packs.at(-1) as CreditPack;
  return { pack: largest, count: Number((monthly + largest.credits - 1n) / largest.credits) };
}

/**
 * The deterministic estimate for a conversation, priced from `catalog` (the live catalog's
 * enabled models, never empty). Hints come from the user's messages only: assistant turns may
 * be earlier estimates that repeat model names and numbers, and system turns are the client's.
 */
export function estimateUsage(messages: readonly EstimatorMessage[], catalog: readonly Model[]): Estimate {
  if (catalog.length === 0) throw new Error("the estimator needs at least one model to price");
  const text = messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
  const hints = readUsageHints(text);
  const { requestsPerDay } = hints.volume;
  const { inputTokens, outputTokens } = tokensPerRequest(hints);
  const cachedTokens = hints.repeatedPrompt ? Math.floor((inputTokens * CACHED_INPUT_SHARE.percent) / 100) : 0;

  const month = (perRequest: Nanos) => nanos(perRequest * BigInt(requestsPerDay) * BigInt(DAYS_PER_MONTH));
  const price = (model: Model): PricedModel => {
    const perRequest = requestCost(inputTokens, outputTokens, model, cachedTokens);
    return { model, perRequest, monthly: month(perRequest), monthlyUncached: month(requestCost(inputTokens, outputTokens, model)) };
  };
  // The intent's first available preference; with none of them enabled, the cheapest model there is.
  const pick = (intent: Intent): PricedModel => {
    const id = MODEL_PREFERENCES[intent].find((candidate) => catalog.some((m) => m.id === candidate));
    const model = catalog.find((m) => m.id === id);
    if (model) return price(model);
    return catalog.map(price).reduce((cheapest, next) => (next.perRequest < cheapest.perRequest ? next : cheapest));
  };

  const intent = intentOf(hints);
  const recommended = pick(intent);
  const budget = hints.cheap && hints.reasoning ? pick("cheap") : null;
  return {
    hints,
    intent,
    preferredModelId: MODEL_PREFERENCES[intent][0] as string,
    requestsPerDay,
    volumeWorking: readVolume(text).working,
    inputTokens,
    cachedTokens,
    outputTokens,
    recommended,
    budgetOption: budget && budget.model.id !== recommended.model.id ? budget : null,
    pack: recommendPack(recommended.monthly),
  };
}
