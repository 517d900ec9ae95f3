import { h } from "./dom.ts";

// Money arrives as exact decimal strings (the API's 6 or 9 places) and is cut, when it is, on
// those digits (BigInt): no float ever touches it. One rule for every amount on every page, a
// balance, a day's spend, a request's cost, a price or a limit alike:
// - toward zero, so that a balance or what is left of a limit is never shown above what it is;
// - to the cent, or to three significant digits where that shows more (at most the API's 9
//   places), so that $4.999838 reads $4.99 and a request's $0.0000039 reads as itself;
// - every digit the API gave in a title (hover), and on a click or tap in place of the figure.
// In tables figures are right-aligned in tabular digits, and a column of amounts is padded with
// room for the digits it lacks beside its longest fraction, so that the decimal points line up.

const MAX_PLACES = 9;
const SIGNIFICANT = 3;

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

const isZero = (d: Decimal): boolean => /^0*$/.test(d.whole + d.fraction);

/** How many decimals the rule keeps: cents, or three significant digits below a dime. */
function placesOf(d: Decimal): number {
  if (d.whole !== "0") return 2;
  const leadingZeros = d.fraction.match(/^0*/)![0].length;
  return Math.min(MAX_PLACES, Math.max(2, leadingZeros + SIGNIFICANT));
}

/** "$1,250.50", "-$0.0000039": at least cents; `trim` drops zeros past them. */
function show(d: Decimal, trim: boolean): string {
  const fraction = trim ? d.fraction.replace(/0+$/, "").padEnd(2, "0") : d.fraction.padEnd(2, "0");
  const grouped = d.whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${d.negative && !isZero(d) ? "-" : ""}$${grouped}.${fraction}`;
}

/** The amount by the dashboard's one rule: "4.999838" → "$4.99", "0.062956130" → "$0.0629", "0.000003900" → "$0.0000039". */
export function usd(amount: string): string {
  const exact = parse(amount);
  const places = placesOf(exact);
  return show({ ...exact, fraction: exact.fraction.slice(0, places).padEnd(places, "0") }, true);
}

/** Every digit the API gave: "4.999838" → "$4.999838", "0.000003900" → "$0.000003900". For titles. */
export const usdExact = (amount: string): string => show(parse(amount), false);

/** An amount said back as a person typed it, to its last significant digit: "2.500000000" → "$2.50", "2.000000001" → "$2.000000001". */
export const usdAsTyped = (amount: string): string => show(parse(amount), true);

/** Shows the exact amount in place of the figure, and the figure again: where no pointer can hover (a phone). */
function toggleExact(event: Event): void {
  const figure = event.currentTarget as HTMLElement;
  const { shown, exact } = figure.dataset;
  figure.textContent = figure.textContent === shown ? exact! : shown!;
}

/** An amount as an element: by the rule, exact on hover and on a click or tap. */
export function money(amount: string): HTMLElement {
  const text = usd(amount);
  const exact = usdExact(amount);
  // A figure that cuts nothing ("$10.00" for "10.000000000") needs no exact twin.
  if (text === usdAsTyped(amount)) return h("span", { class: "money" }, text);
  return h("span", { class: "money exact-on-click", title: exact, "data-shown": text, "data-exact": exact, onClick: toggleExact }, text);
}

const decimals = (figure: Element): number => (figure.textContent ?? "").split(".")[1]?.length ?? 0;

/**
 * Pads the amounts of each of the table's columns by the width of the digits they lack beside
 * the column's longest fraction, so that with right alignment and tabular digits their decimal
 * points line up ($4.99 over $0.0000039).
 */
export function alignMoney(table: HTMLTableElement): void {
  const columns: HTMLElement[][] = [];
  for (const row of table.querySelectorAll("tbody tr")) {
    [...row.children].forEach((cell, i) => {
      const figure = cell.querySelector<HTMLElement>(".money");
      if (figure && (cell as HTMLTableCellElement).colSpan === 1) (columns[i] ??= []).push(figure);
    });
  }
  for (const figures of columns.filter(Boolean)) {
    const longest = Math.max(...figures.map(decimals));
    // Room for the missing digits (a digit is 1ch wide in tabular figures), never text that a copy would pick up.
    for (const figure of figures) if (longest > decimals(figure)) figure.classList.add(`pad-${longest - decimals(figure)}`);
  }
}

/** Amounts in stored text ("grant of 10.000000000 USD", "input 0.4000 USD/1M") said as money, by the rule ("$10.00", "$0.40/1M"). */
export const moneyInText = (text: string): string =>
  text.replace(/(-?\d+(?:\.\d+)?) USD(\/1M)?/g, (_, amount: string, perMillion: string | undefined) => `${usd(amount)}${perMillion ?? ""}`);

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

/** A decimal string of USD (as the API sends money) in nano-USD. */
function nanosOf(amount: string): bigint {
  const [whole = "0", fraction = ""] = amount.replace("-", "").split(".");
  const value = BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, "0").slice(0, 9));
  return amount.startsWith("-") ? -value : value;
}

/** The exact sum of decimal strings with 9 fractional digits (as the API sends money), as such a string. */
export function sumUsd(amounts: string[]): string {
  const nanos = amounts.reduce((sum, amount) => sum + nanosOf(amount), 0n);
  const negative = nanos < 0n;
  const digits = (negative ? -nanos : nanos).toString().padStart(10, "0");
  return `${negative ? "-" : ""}${digits.slice(0, -9)}.${digits.slice(-9)}`;
}

/** `part` of `whole` in whole percent, toward zero ("19%"); a share above nothing that rounds to 0 reads "under 1%". */
export function sharePercent(part: string, whole: string): string {
  const [p, w] = [nanosOf(part), nanosOf(whole)];
  if (w <= 0n) return "100%";
  const percent = (p * 100n) / w;
  return percent === 0n && p > 0n ? "under 1%" : `${percent}%`;
}
