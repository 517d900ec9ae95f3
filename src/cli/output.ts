import Table from "cli-table3";
import { formatUsd, type Nanos } from "../core/money.ts";

export class CliError extends Error {
  override name = "CliError";
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

export interface Output {
  json: boolean;
}

/**
 * An amount of money as every CLI command prints it, in text and in --json: exact, to the
 * nano-USD the ledger keeps (9 places), as `credits show` does. Rounding to fewer places would
 * show an operator a balance or a limit that is not the one the gateway enforces.
 */
export const exactUsd = (amount: Nanos): string => formatUsd(amount, 9);

/** `exactUsd`, or null for an unset amount (a key without a limit). */
export const exactUsdOrNull = (amount: Nanos | null): string | null => (amount === null ? null : exactUsd(amount));

// JSON output turns bigints (nano-USD) into strings; commands format money themselves.
const replacer = (_key: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value);

/** Prints `data` as JSON with --json, otherwise as a table of `columns` (header → cell). */
export function printRecords<T>(out: Output, data: T[], columns: Record<string, (row: T) => string | number>): void {
  if (out.json) {
    console.log(JSON.stringify(data, replacer, 2));
    return;
  }
  if (data.length === 0) {
    console.log("(none)");
    return;
  }
  const table = new Table({ head: Object.keys(columns), style: { head: [], border: [], compact: true } });
  for (const row of data) table.push(Object.values(columns).map((cell) => String(cell(row))));
  console.log(table.toString());
}

/** Prints one result: JSON with --json, otherwise the human sentence. */
export function printResult(out: Output, data: unknown, sentence: string): void {
  console.log(out.json ? JSON.stringify(data, replacer, 2) : sentence);
}
