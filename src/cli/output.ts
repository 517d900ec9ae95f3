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
 * An amount of money as the CLI's text prints it: exact, to the nano-USD the ledger keeps (9
 * places). Rounding to fewer places would show an operator a balance or a limit that is not the
 * one the gateway enforces. (--json prints the HTTP API's records, exact too: records.ts.)
 */
export const exactUsd = (amount: Nanos): string => formatUsd(amount, 9);

/** `exactUsd`, or null for an unset amount (a key without a limit). */
export const exactUsdOrNull = (amount: Nanos | null): string | null => (amount === null ? null : exactUsd(amount));

/**
 * Every --json output goes through here. A record the HTTP API also returns is printed by the
 * API's own serializer, so a script reads the same field names and types from both.
 */
export function printJson(data: unknown): void {
  console.log(JSON.stringify(data, null, 2));
}

/**
 * Prints `rows` as a JSON array of `view(row)` with --json, otherwise as a table of `columns`
 * (header → cell), read from the rows themselves so that the text can be exact.
 */
export function printRecords<T>(out: Output, rows: T[], view: (row: T) => unknown, columns: Record<string, (row: T) => string | number>): void {
  if (out.json) {
    printJson(rows.map(view));
    return;
  }
  if (rows.length === 0) {
    console.log("(none)");
    return;
  }
  const table = new Table({ head: Object.keys(columns), style: { head: [], border: [], compact: true } });
  for (const row of rows) table.push(Object.values(columns).map((cell) => String(cell(row))));
  console.log(table.toString());
}

/** Prints one result: `record` as JSON with --json, otherwise the human sentence. */
export function printResult(out: Output, record: unknown, sentence: string): void {
  if (out.json) printJson(record);
  else console.log(sentence);
}
