// drizzle as the typed query layer of the store's paths that are not hot. Statements are built
// with drizzle's builders over the schema (src/db/schema/sqlite.ts), so that a table's columns
// and their value types are checked by the compiler, and run through `Work` like every other
// statement: transactions, SQLite's group commit and the Postgres driver stay as they are. The
// SQLite dialect's text serves both databases (double-quoted names, `?` placeholders, which the
// Postgres driver renumbers). The chat path keeps its hand-tuned SQL (src/db/store/billing,
// src/db/store/keys/lookup.ts).
import { getTableColumns, sql, type AnyColumn, type Table } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { DAY_MS } from "../core/time.ts";
import { rows, type Row, type Work } from "./sql.ts";

/** Builds statements (`build.select()…`, `build.update(table)…`); never connects to anything. */
export const build = drizzle.mock();

interface Statement {
  toSQL(): { sql: string; params: unknown[] };
}

/** Runs a statement built with `build` for its rows, as the database answered them. */
export function* query(statement: Statement): Work<Row[]> {
  const { sql, params } = statement.toSQL();
  return yield* rows(sql, ...params);
}

/** Runs a statement that selects or returns whole rows of `table`, and reads them as its records. */
export function* records<T extends Table>(table: T, statement: Statement): Work<T["$inferSelect"][]> {
  return (yield* query(statement)).map((row) => record(table, row));
}

/**
 * A row (keyed by column name, integers as bigints from both drivers) as the table's record:
 * nano-USD columns (named `…nanos…`, see the schema) as bigints, other integers as numbers.
 */
export function record<T extends Table>(table: T, row: Row): T["$inferSelect"] {
  return readerOf(table)(row) as T["$inferSelect"];
}

type Reader = (row: Row) => Record<string, unknown>;
const byTable = new WeakMap<Table, Reader>();

/**
 * How `table`'s rows are read, compiled once per table into one function that builds the
 * record as an object literal: reading twenty columns by name in a loop, onto an object grown
 * key by key, cost the chat path's key lookup ~5 µs. Field and column names come from the
 * schema, never from input; they are quoted as JSON strings all the same.
 */
function readerOf(table: Table): Reader {
  let reader = byTable.get(table);
  if (!reader) {
    const fields = Object.entries(getTableColumns(table)).map(([field, column]) => {
      const value = `row[${JSON.stringify(column.name)}]`;
      const read = column.columnType !== "SQLiteInteger" ? "v" : column.name.includes("nanos") ? "BigInt(v)" : "Number(v)";
      return `${JSON.stringify(field)}: (v = ${value}) === null || v === undefined ? null : ${read}`;
    });
    reader = new Function("row", `let v; return {\n${fields.join(",\n")}\n};`) as Reader;
    byTable.set(table, reader);
  }
  return reader;
}

/** An epoch-milliseconds column as its UTC day: integer division, on both dialects (for reports by day). */
export const utcDay = (column: AnyColumn) => sql<number>`${column} / ${sql.raw(String(DAY_MS))}`;
