// Money arrives as exact decimal strings and is shown exactly: no float ever rounds it.

/** "5.000000" → "$5.00", "0.000003900" → "$0.0000039", "-1250.5" → "-$1,250.50": at least cents, no trailing zeros past them. */
export function usd(amount: string): string {
  const negative = amount.startsWith("-");
  const [whole = "0", fraction = ""] = (negative ? amount.slice(1) : amount).split(".");
  const cents = fraction.replace(/0+$/, "").padEnd(2, "0");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${negative ? "-" : ""}$${grouped}.${cents}`;
}

/** A whole number with thousands separators. */
export const count = (value: number): string => value.toLocaleString("en-US");

/** A moment in the browser's time zone. */
export const dateTime = (iso: string): string =>
  new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short" });

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
