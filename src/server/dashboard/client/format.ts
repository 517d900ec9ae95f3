import { h } from "./dom.ts";

// Money arrives as exact decimal strings and is rounded, when it is, on those digits (BigInt):
// no float ever touches it. One rule for the whole dashboard:
// - balances and totals (a balance, a day's or a model's spend, a pack) read to the cent, with
//   the exact figure in a title; a total above zero that rounds to nothing reads "<$0.01";
// - a request's cost, what caching saved it, and prices per million tokens read to their
//   significant digits, at most 6 decimals (at least 2);
// - an amount a person typed (a limit, a threshold, a grant) is said back exactly.
// In tables figures are right-aligned in tabular digits, and a column of costs is padded with
// room for the digits it lacks beside its longest fraction, so that the decimal points line up.

interface Decimal {
  negative: boolean;
  whole: string;
  fraction: string;
}

function parse(amount: string): Decimal {
  const negative = amount.startsWith("-");
  const [whole = "0", fraction = ""] = (negative ? amount.slice(1) : amount).split(".");
  return { negative, whole: whole.replace(/^0+(?=\d)/, ""), fraction };
}

/** `d` rounded half up (away from zero) to `places` decimals. */
function round(d: Decimal, places: number): Decimal {
  if (d.fraction.length <= places) return { ...d, fraction: d.fraction.padEnd(places, "0") };
  const kept = BigInt(d.whole + d.fraction.slice(0, places)) + (Number(d.fraction[places]) >= 5 ? 1n : 0n);
  const digits = kept.toString().padStart(places + 1, "0");
  return { negative: d.negative, whole: digits.slice(0, digits.length - places), fraction: digits.slice(digits.length - places) };
}

const isZero = (d: Decimal): boolean => /^0*$/.test(d.whole + d.fraction);

/** "$1,250.50": at least cents, no trailing zeros past them. */
function show(d: Decimal): string {
  const cents = d.fraction.replace(/0+$/, "").padEnd(2, "0");
  const grouped = d.whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${d.negative && !isZero(d) ? "-" : ""}$${grouped}.${cents}`;
}

/** Exactly as given: "0.000003900" → "$0.0000039", "-1250.5" → "-$1,250.50". For titles and amounts a person typed. */
export const usdExact = (amount: string): string => show(parse(amount));

/** A balance or a total, to the cent: "19.937044" → "$19.94"; "0.0000039" → "<$0.01". */
export function usdTotal(amount: string): string {
  const exact = parse(amount);
  const cents = round(exact, 2);
  return isZero(cents) && !isZero(exact) && !exact.negative ? "<$0.01" : show(cents);
}

/** A request's cost or a price: significant digits, at most 6 decimals: "0.06295613" → "$0.062956", "0.0000039" → "$0.000004". */
export function usdCost(amount: string): string {
  const exact = parse(amount);
  const shown = round(exact, 6);
  return isZero(shown) && !isZero(exact) && !exact.negative ? "<$0.000001" : show(shown);
}

/** The figure as text, with the exact amount in a title when the text rounds it. */
const figure = (text: string, amount: string): HTMLElement => {
  const exact = usdExact(amount);
  return h("span", { class: "money", title: text === exact ? undefined : exact }, text);
};

/** A balance or total as an element: to the cent, exact on hover. */
export const total = (amount: string): HTMLElement => figure(usdTotal(amount), amount);

/** A cost or price as an element: significant digits (at most 6 decimals), exact on hover. */
export const cost = (amount: string): HTMLElement => figure(usdCost(amount), amount);

/**
 * A table column of costs or prices: each padded by the width of the digits it lacks beside the longest fraction
 * among them, so that with right alignment and tabular digits their decimal points line up.
 */
export function costColumn(amounts: string[]): HTMLElement[] {
  const texts = amounts.map(usdCost);
  const places = Math.max(2, ...texts.map((t) => t.split(".")[1]?.length ?? 0));
  return texts.map((text, i) => {
    const element = figure(text, amounts[i]!);
    // Room for the missing digits (a digit is 1ch wide in tabular figures), never text that a copy would pick up.
    const missing = places - (text.split(".")[1]?.length ?? 0);
    if (missing > 0) element.classList.add(`pad-${missing}`);
    return element;
  });
}

/** Amounts in stored text ("grant of 10.000000000 USD", "input 0.4000 USD/1M") said as money ("$10.00", "$0.40/1M"). */
export const moneyInText = (text: string): string =>
  text.replace(/(-?\d+(?:\.\d+)?) USD(\/1M)?/g, (_, amount: string, perMillion: string | undefined) => `${usdExact(amount)}${perMillion ?? ""}`);

/** "10.500000" → "10.5": a stored amount as a person would type it into a field (empty for none). */
export const plainDecimal = (value: string | null): string => (value === null ? "" : value.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, ""));

/** A whole number with thousands separators. */
export const count = (value: number): string => value.toLocaleString("en-US");

const LOCAL_MOMENT = new Intl.DateTimeFormat("en-US", {
  year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short",
});

/** A moment in the browser's time zone, ISO-style with the zone said: "2026-03-14 09:26 UTC", "2026-03-14 10:26 GMT+1". */
export function dateTime(iso: string): string {
  const part = Object.fromEntries(LOCAL_MOMENT.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute} ${part.timeZoneName}`;
}

/** A moment in UTC, ISO-style, its zone said: ["2026-03-14", "09:26 UTC"] (the day and the time, to be kept whole each). */
export const utcMoment = (iso: string): [string, string] => {
  const at = new Date(iso).toISOString();
  return [at.slice(0, 10), `${at.slice(11, 16)} UTC`];
};

/** "2026-10-23" → "Oct 23". */
export const shortDate = (isoDate: string): string =>
  new Date(`${isoDate}T00:00:00Z`).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });

export const plural = (n: number, one: string, many = `${one}s`): string => `${count(n)} ${n === 1 ? one : many}`;

/** A JSON number as plain decimal digits (never "1e-7"), exact to the nano-USD the API keeps. */
export const plainNumber = (value: number): string =>
  value.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 9 });

/** The exact sum of decimal strings with 9 fractional digits (as the API sends money), as such a string. */
export function sumUsd(amounts: string[]): string {
  const nanos = amounts.reduce((sum, amount) => {
    const [whole = "0", fraction = ""] = amount.replace("-", "").split(".");
    const value = BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, "0").slice(0, 9));
    return sum + (amount.startsWith("-") ? -value : value);
  }, 0n);
  const negative = nanos < 0n;
  const digits = (negative ? -nanos : nanos).toString().padStart(10, "0");
  return `${negative ? "-" : ""}${digits.slice(0, -9)}.${digits.slice(-9)}`;
}
