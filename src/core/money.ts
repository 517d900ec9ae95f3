import Decimal from "decimal.js";

/**
 * Money is held as an integer count of nano-USD (1e-9 USD) in a bigint. No floating point
 * value ever stands for an amount: user input is parsed as a decimal string and converted
 * exactly, and costs are computed with integer arithmetic and rounded up once.
 */
export type Nanos = bigint & { readonly __unit: "nano-USD" };

export const NANOS_PER_USD = 1_000_000_000n;
const TOKENS_PER_PRICE_UNIT = 1_000_000n;

export const nanos = (value: bigint | number | string): Nanos => BigInt(value) as Nanos;
export const ZERO = nanos(0);

/**
 * Converts a USD amount (a JSON number or a decimal string) into nano-USD. Returns null
 * when the value is not a finite number or has more precision than a nano-USD.
 */
export function parseUsd(value: number | string): Nanos | null {
  let amount: Decimal;
  try {
    // A JSON number converts through its shortest round-trip string, so 0.1 is exactly "0.1".
    amount = new Decimal(value);
  } catch {
    return null;
  }
  if (!amount.isFinite()) return null;
  const scaled = amount.mul(NANOS_PER_USD.toString());
  if (!scaled.isInteger()) return null;
  return nanos(scaled.toFixed(0));
}

/** Formats nano-USD as a decimal string with exactly `places` fractional digits (half up). */
export function formatUsd(amount: Nanos, places: 2 | 4 | 6 | 9): string {
  // Integer arithmetic, as decimal.js's toFixed(places, ROUND_HALF_UP) would round (half away
  // from zero, a negative that rounds to nothing keeps its sign): every chat answer formats its
  // cost, and decimal.js took ~2% of a request's CPU for it.
  const negative = amount < 0n;
  const unit = 10n ** BigInt(9 - places);
  const scaled = ((negative ? -amount : amount) + unit / 2n) / unit;
  const digits = scaled.toString().padStart(places + 1, "0");
  const text = `${digits.slice(0, digits.length - places)}.${digits.slice(digits.length - places)}`;
  return negative ? `-${text}` : text;
}

/** Price of `tokens` tokens at `pricePerMTok` nano-USD per million tokens, before rounding. */
function scaledCost(tokens: number, pricePerMTok: Nanos): bigint {
  return BigInt(tokens) * pricePerMTok;
}

/** Integer division that rounds toward positive infinity, for non-negative operands. */
const ceilDiv = (numerator: bigint, denominator: bigint): bigint =>
  (numerator + denominator - 1n) / denominator;

/**
 * Cost of a request in nano-USD: input and output tokens at their per-million prices,
 * summed exactly and rounded up once to the nano-USD, so the gateway never undercharges.
 * `cachedTokens` of the prompt are priced at `cachedInputPerMTok` (the input price when unset).
 */
export function requestCost(
  promptTokens: number,
  completionTokens: number,
  prices: { inputPerMTok: Nanos; outputPerMTok: Nanos; cachedInputPerMTok?: Nanos | null },
  cachedTokens = 0,
): Nanos {
  const cached = Math.min(cachedTokens, promptTokens);
  const total = scaledCost(promptTokens - cached, prices.inputPerMTok)
    + scaledCost(cached, prices.cachedInputPerMTok ?? prices.inputPerMTok)
    + scaledCost(completionTokens, prices.outputPerMTok);
  return nanos(ceilDiv(total, TOKENS_PER_PRICE_UNIT));
}
