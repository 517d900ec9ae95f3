import { defaultCachedInputPrice } from "./cached-prices.ts";
import { nanos, parseUsd, type Nanos } from "./money.ts";

export const PROVIDERS = ["openai", "deepseek", "moonshot", "xai", "meta"] as const;
export type Provider = (typeof PROVIDERS)[number];

const CATEGORIES = ["frontier", "premium", "reasoning", "standard", "efficient"] as const;
export type Category = (typeof CATEGORIES)[number];

export interface Model {
  id: string;
  displayName: string;
  provider: Provider;
  category: Category;
  contextWindow: number;
  inputPerMTok: Nanos;
  outputPerMTok: Nanos;
  /** Price of prompt tokens the provider read from its cache; the input price when unset. */
  cachedInputPerMTok: Nanos | null;
  /** The provider's own name for the model, sent upstream. */
  upstreamModel: string;
  /** Largest completion the provider allows; caps the reservation and what is sent upstream. */
  maxOutputTokens: number;
  useCaseHint: string;
  speedBadge: string;
  enabled: boolean;
}

type Row = [
  id: string, displayName: string, provider: Provider, category: Category, contextWindow: number,
  inputUsd: string, outputUsd: string, upstreamModel: string, maxOutputTokens: number,
  useCaseHint: string, speedBadge: string,
];

const usd = (value: string): Nanos => parseUsd(value) ?? nanos(0);

// The spec's fallback registry, in its order. Output limits and upstream names follow each
// provider's documentation; operators change them in the database, which is the source of truth.
const ROWS: Row[] = [
  ["gpt-5.5", "GPT-5.5", "openai", "frontier", 400_000, "5.00", "30.00", "gpt-5.5", 128_000,
    "High-quality reasoning, general production and code review", "Frontier"],
  ["gpt-5", "GPT-5", "openai", "frontier", 400_000, "1.25", "10.00", "gpt-5", 128_000,
    "General production work with strong reasoning", "Frontier"],
  ["gpt-5.4", "GPT-5.4", "openai", "frontier", 400_000, "2.50", "15.00", "gpt-5.4", 128_000,
    "Demanding production work at a lower price than GPT-5.5", "Frontier"],
  ["gpt-4o", "GPT-4o", "openai", "frontier", 128_000, "2.50", "10.00", "gpt-4o", 16_384,
    "Multimodal flagship", "Multimodal"],
  ["gpt-4.1", "GPT-4.1", "openai", "frontier", 1_047_576, "2.00", "8.00", "gpt-4.1", 32_768,
    "Long-context instruction following", "1M context"],
  ["o4-mini", "o4-mini", "openai", "reasoning", 200_000, "1.10", "4.40", "o4-mini", 100_000,
    "Affordable step-by-step reasoning", "Reasoning"],
  ["gpt-5.4-mini", "GPT-5.4 mini", "openai", "standard", 400_000, "0.40", "1.60", "gpt-5.4-mini", 128_000,
    "Balanced production work", "Balanced"],
  ["gpt-4.1-mini", "GPT-4.1 mini", "openai", "standard", 1_047_576, "0.40", "1.60", "gpt-4.1-mini", 32_768,
    "Long-context work on a budget", "1M context"],
  ["gpt-5.4-nano", "GPT-5.4 nano", "openai", "efficient", 400_000, "0.10", "0.40", "gpt-5.4-nano", 128_000,
    "Simple high-volume tasks", "Fast"],
  ["gpt-4.1-nano", "GPT-4.1 nano", "openai", "efficient", 1_047_576, "0.10", "0.40", "gpt-4.1-nano", 32_768,
    "Classification and routing", "Fastest"],
  ["deepseek-v4-pro", "DeepSeek V4 Pro", "deepseek", "frontier", 128_000, "1.93", "3.83", "deepseek-v4-pro", 65_536,
    "Frontier quality at a low output price", "Frontier"],
  ["deepseek-v3.2-speciale", "DeepSeek V3.2 Speciale", "deepseek", "frontier", 128_000, "0.40", "0.80",
    "deepseek-v3.2-speciale", 65_536, "Deep reasoning on hard problems", "Reasoning"],
  ["deepseek-v3.2", "DeepSeek V3.2", "deepseek", "standard", 128_000, "0.28", "0.42", "deepseek-chat", 8_192,
    "Efficient code generation", "Code"],
  ["deepseek-v4-flash", "DeepSeek V4 Flash", "deepseek", "efficient", 128_000, "0.14", "0.28", "deepseek-v4-flash", 8_192,
    "Fast low-cost edits", "Fast"],
  ["kimi-k2.6", "Kimi K2.6", "moonshot", "frontier", 256_000, "0.95", "4.00", "kimi-k2.6", 32_768,
    "Long-context multilingual work and long documents", "256K context"],
  ["kimi-k2.5", "Kimi K2.5", "moonshot", "standard", 256_000, "0.60", "2.50", "kimi-k2.5", 32_768,
    "Long-context multilingual work and long documents", "256K context"],
  ["grok-4-3", "Grok 4.3", "xai", "frontier", 128_000, "1.25", "2.50", "grok-4.3", 32_768,
    "Fast frontier chat", "Fast frontier"],
  ["grok-4-20-reasoning", "Grok 4.20 Reasoning", "xai", "reasoning", 128_000, "1.25", "2.50", "grok-4.20-reasoning", 32_768,
    "Complex reasoning", "Reasoning"],
  ["grok-4-1-fast-reasoning", "Grok 4.1 Fast Reasoning", "xai", "reasoning", 128_000, "0.20", "0.50",
    "grok-4-1-fast-reasoning", 32_768, "Low-cost reasoning at speed", "Fast reasoning"],
  ["llama-3.3-70b-instruct", "Llama 3.3 70B Instruct", "meta", "standard", 128_000, "0.13", "0.40",
    "Llama-3.3-70B-Instruct", 8_192, "Open-weight general chat", "Open weights"],
  ["llama-4-maverick", "Llama 4 Maverick", "meta", "standard", 512_000, "0.18", "0.70",
    "Llama-4-Maverick-17B-128E-Instruct-FP8", 16_384, "Open-weight multimodal chat", "512K context"],
  ["llama-4-scout", "Llama 4 Scout", "meta", "efficient", 512_000, "0.10", "0.35",
    "Llama-4-Scout-17B-16E-Instruct-FP8", 16_384, "High-volume low-cost chat", "Cheapest"],
];

/** The built-in registry: served by `GET /models` when the database cannot be read, and seeded by migrations. */
export const FALLBACK_CATALOG: readonly Model[] = ROWS.map(
  ([id, displayName, provider, category, contextWindow, inputUsd, outputUsd, upstreamModel, maxOutputTokens, useCaseHint, speedBadge]) => ({
    id, displayName, provider, category, contextWindow,
    inputPerMTok: usd(inputUsd), outputPerMTok: usd(outputUsd), cachedInputPerMTok: defaultCachedInputPrice(id, usd(inputUsd)),
    upstreamModel, maxOutputTokens, useCaseHint, speedBadge, enabled: true,
  }),
);
