import { expect, test } from "bun:test";
import { pgSchemaFrom } from "../../src/db/schema/derive-pg.ts";

const dir = new URL("../../src/db/schema/", import.meta.url);

test("the Postgres schema is the one generated from the SQLite schema", async () => {
  const sqlite = await Bun.file(new URL("sqlite.ts", dir)).text();
  const pg = await Bun.file(new URL("pg.gen.ts", dir)).text();
  expect(pg).toBe(pgSchemaFrom(sqlite));
});

test("the derivation swaps the dialect's imports and table builder only", () => {
  const source = [
    'import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";',
    'const bigint = (name: string) => integer(name, { mode: "number" });',
    'export const t = sqliteTable("t", { id: text("id") }, (t) => [index("i").on(t.id)]);',
  ].join("\n");
  expect(pgSchemaFrom(source).split("\n").slice(1)).toEqual([
    'import { bigint as int8, index, pgTable, text } from "drizzle-orm/pg-core";',
    'const bigint = (name: string) => int8(name, { mode: "number" });',
    'export const t = pgTable("t", { id: text("id") }, (t) => [index("i").on(t.id)]);',
  ]);
});
