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
  const out: Record<string, unknown> = {};
  for (const { field, name, read } of readers(table)) {
    const value = row[name];
    out[field] = value === null || value === undefined ? null : read(value);
  }
  return out as T["$inferSelect"];
}

type Reader = { field: string; name: string; read(value: unknown): unknown };
const byTable = new WeakMap<Table, Reader[]>();
const asIs = (value: unknown) => value;

/** How each column of `table` is read, worked out once per table (the chat path's key lookup reads a key's record). */
function readers(table: Table): Reader[] {
  let found = byTable.get(table);
  if (!found) {
    found = Object.entries(getTableColumns(table)).map(([field, column]) => ({
      field,
      name: column.name,
      read: column.columnType !== "SQLiteInteger" ? asIs : column.name.includes("nanos") ? (v: unknown) => BigInt(v as bigint) : Number,
    }));
    byTable.set(table, found);
  }
  return found;
}

/** An epoch-milliseconds column as its UTC day: integer division, on both dialects (for reports by day). */
export const utcDay = (column: AnyColumn) => sql<number>`${column} / ${sql.raw(String(DAY_MS))}`;
