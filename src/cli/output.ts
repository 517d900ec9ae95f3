import Table from "cli-table3";

export class CliError extends Error {
  override name = "CliError";
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

export interface Output {
  json: boolean;
}

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
