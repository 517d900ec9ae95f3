import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { pgSchemaFiles, pgSchemaFrom } from "../../src/db/schema/derive-pg.ts";

const dir = new URL("../../src/db/schema/", import.meta.url);

test("the Postgres schema is the one generated from the SQLite schema, file by file", async () => {
  const sqliteFiles = readdirSync(new URL("sqlite/", dir)).filter((name) => name.endsWith(".ts"));
  const files = pgSchemaFiles(sqliteFiles);
  expect(readdirSync(new URL("pg/", dir)).sort()).toEqual(files.slice(1).map((f) => f.to.slice("pg/".length)).sort());
  for (const { from, to } of files) {
    const sqlite = await Bun.file(new URL(from, dir)).text();
    expect(await Bun.file(new URL(to, dir)).text()).toBe(pgSchemaFrom(sqlite, `src/db/schema/${from}`));
  }
});

test("the derivation swaps the dialect's imports, table builder and relative imports only", () => {
  const source = [
    'import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";',
    'import { money } from "./columns.ts";',
    'import type { Nanos } from "../../../core/money.ts";',
    'const bigint = (name: string) => integer(name, { mode: "number" });',
    'export const t = sqliteTable("t", { id: text("id") }, (t) => [index("i").on(t.id)]);',
  ].join("\n");
  expect(pgSchemaFrom(source, "src/db/schema/sqlite/t.ts").split("\n")).toEqual([
    "// GENERATED from src/db/schema/sqlite/t.ts by scripts/schema-pg.ts (`make migrations`); do not edit.",
    'import { bigint as int8, index, pgTable, text } from "drizzle-orm/pg-core";',
    'import { money } from "./columns.gen.ts";',
    'import type { Nanos } from "../../../core/money.ts";',
    'const bigint = (name: string) => int8(name, { mode: "number" });',
    'export const t = pgTable("t", { id: text("id") }, (t) => [index("i").on(t.id)]);',
  ]);
  expect(pgSchemaFrom('export * from "./sqlite/keys.ts";', "src/db/schema/sqlite.ts").split("\n")[1]).toBe('export * from "./pg/keys.gen.ts";');
});
