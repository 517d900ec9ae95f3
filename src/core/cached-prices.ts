// What a prompt token read from the provider's cache sells for, out of the box: the model's input
// sell price × the provider's documented cached/uncached input price ratio for that model. Each
// ratio is the provider's own price pair, from the page named beside it. A model whose provider
// documents no discount (Meta's Llama API) keeps the input price. The operator may change any
// of them (console, `gateway models set-price … --cached-input`). Ratios as the pages gave them in
// November 2026: they change (DeepSeek's several times), so recheck them with the catalog's prices.
import { nanos, type Nanos } from "./money.ts";

/** cached / uncached, as the two prices the page gives per million tokens. */
type Ratio = readonly [cached: number, uncached: number];

const OPENAI = "https://developers.openai.com/api/docs/pricing";
const DEEPSEEK = "https://api-docs.deepseek.com/quick_start/pricing";
const XAI = "https://docs.x.ai/developers/models";

export const CACHED_INPUT_RATIOS: Readonly<Record<string, { ratio: Ratio; source: string }>> = {
  // GPT-5 family: cached input a tenth of input (GPT-5 $1.25 → $0.125, GPT-5.4 $2.50 → $0.25).
  "gpt-5.5": { ratio: [1, 10], source: OPENAI },
  "gpt-5": { ratio: [1, 10], source: OPENAI },
  "gpt-5.4": { ratio: [1, 10], source: OPENAI },
  "gpt-5.4-mini": { ratio: [1, 10], source: OPENAI },
  "gpt-5.4-nano": { ratio: [1, 10], source: OPENAI },
  // GPT-4.1 family and o4-mini: a quarter (GPT-4.1 $2.00 → $0.50, o4-mini $1.10 → $0.275).
  "gpt-4.1": { ratio: [1, 4], source: OPENAI },
  "gpt-4.1-mini": { ratio: [1, 4], source: OPENAI },
  "gpt-4.1-nano": { ratio: [1, 4], source: OPENAI },
  "o4-mini": { ratio: [1, 4], source: OPENAI },
  // GPT-4o: a half ($2.50 → $1.25).
  "gpt-4o": { ratio: [1, 2], source: OPENAI },
  // Cache hit against cache miss: V4 Pro $0.003625 / $0.435, V4 Flash $0.0028 / $0.14, V3.2 (its
  // Speciale endpoint priced alike) $0.028 / $0.28.
  "deepseek-v4-pro": { ratio: [1, 120], source: DEEPSEEK },
  "deepseek-v4-flash": { ratio: [1, 50], source: DEEPSEEK },
  "deepseek-v3.2": { ratio: [1, 10], source: DEEPSEEK },
  "deepseek-v3.2-speciale": { ratio: [1, 10], source: DEEPSEEK },
  // Cache hit against cache miss: K2.6 $0.16 / $0.95, K2.5 $0.10 / $0.60.
  "kimi-k2.6": { ratio: [16, 95], source: "https://platform.kimi.ai/docs/pricing/chat-k26" },
  "kimi-k2.5": { ratio: [1, 6], source: "https://platform.moonshot.ai/docs/pricing/chat" },
  // Cached input against input: Grok 4.3 and 4.20 $0.20 / $1.25, Grok 4.1 Fast $0.05 / $0.20.
  "grok-4-3": { ratio: [4, 25], source: `${XAI}/grok-4.3` },
  "grok-4-20-reasoning": { ratio: [4, 25], source: `${XAI}/grok-4.20-0309` },
  "grok-4-1-fast-reasoning": { ratio: [1, 4], source: `${XAI}/grok-4-1-fast-reasoning` },
};

/** Catalog prices keep 4 decimal places of USD per million tokens: 100,000 nano-USD. */
export const PRICE_STEP_NANOS = 100_000n;

/** `input` × `ratio`, rounded up to the catalog's price step. */
export function cachedInputPrice(input: Nanos, [cached, uncached]: Ratio): Nanos {
  const step = BigInt(uncached) * PRICE_STEP_NANOS;
  return nanos(((input * BigInt(cached) + step - 1n) / step) * PRICE_STEP_NANOS);
}

/** A model's cached-input sell price out of the box, or null (the input price) where its provider documents no discount. */
export function defaultCachedInputPrice(modelId: string, input: Nanos): Nanos | null {
  const documented = CACHED_INPUT_RATIOS[modelId];
  return documented ? cachedInputPrice(input, documented.ratio) : null;
}
