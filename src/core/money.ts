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
 * The only text a USD amount may be written as: digits, then at most 9 decimals (a nano-USD)
 * after a point, with a minus sign where a negative amount is allowed. No exponent ("1e3"), no
 * hexadecimal ("0x10"), no "+", no spaces, no "_", no bare point ("1.", ".5"), no Infinity or
 * NaN: a decimal.js or Number reading of those would be a different amount than the one meant.
 */
const USD_TEXT = /^(-?)(\d+)(?:\.(\d+))?$/;
const USD_PLACES = 9;

/** Why an amount was refused: not a decimal amount, finer than a nano-USD, or negative where that is not allowed. */
export type UsdRefusal = "format" | "precision" | "negative";

export type UsdReading = { ok: true; amount: Nanos } | { ok: false; refusal: UsdRefusal };

/**
 * Reads a USD amount, a JSON number or a decimal string (`USD_TEXT`), exactly into nano-USD.
 * Negative amounts only when `signed`. Every money input of every surface goes through here.
 */
export function readUsd(value: number | string, { signed = false }: { signed?: boolean } = {}): UsdReading {
  if (typeof value === "string") {
    const match = USD_TEXT.exec(value);
    if (!match) return { ok: false, refusal: "format" };
    const [, sign, whole, fraction = ""] = match;
    if (fraction.length > USD_PLACES) return { ok: false, refusal: "precision" };
    if (sign && !signed) return { ok: false, refusal: "negative" };
    const magnitude = BigInt(whole!) * NANOS_PER_USD + BigInt(fraction.padEnd(USD_PLACES, "0"));
    return { ok: true, amount: nanos(sign ? -magnitude : magnitude) };
  }
  if (typeof value !== "number" || !Number.isFinite(value)) return { ok: false, refusal: "format" };
  if (value < 0 && !signed) return { ok: false, refusal: "negative" };
  // A JSON number converts through its shortest round-trip string, so 0.1 is exactly "0.1".
  const scaled = new Decimal(value).mul(NANOS_PER_USD.toString());
  if (!scaled.isInteger()) return { ok: false, refusal: "precision" };
  return { ok: true, amount: nanos(scaled.toFixed(0)) };
}

/** `readUsd`'s amount, or null when it refused the value. */
export function parseUsd(value: number | string, options: { signed?: boolean } = {}): Nanos | null {
  const read = readUsd(value, options);
  return read.ok ? read.amount : null;
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

/**
 * How a record writes its amounts: at the places the HTTP API gives each one (`apiUsd`), or
 * exact to the nano-USD (`exactUsdFormat`, the CLI's: DESIGN has it print money exactly, in
 * the API's field names and types). A record's serializer takes one, so that there is one
 * serializer per record whoever prints it.
 */
export type UsdFormat = (amount: Nanos, apiPlaces: 2 | 4 | 6 | 9) => string;
export const apiUsd: UsdFormat = formatUsd;
export const exactUsdFormat: UsdFormat = (amount) => formatUsd(amount, 9);

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
