// Writes src/db/schema/pg.gen.ts and src/db/schema/pg/*.gen.ts from src/db/schema/sqlite.ts and
// src/db/schema/sqlite/*.ts, the one hand-written schema: drizzle has no dialect-neutral table
// builder, and the two dialects differ here only in their imports and table function.
// `make migrations` runs it before drizzle-kit; tests/unit/schema.test.ts fails when the
// generated files are stale; they are not committed: `make install` writes them.
import { readdirSync, rmSync } from "node:fs";
import { pgSchemaFiles, pgSchemaFrom } from "../src/db/schema/derive-pg.ts";

const dir = new URL("../src/db/schema/", import.meta.url);
rmSync(new URL("pg/", dir), { recursive: true, force: true });
const sqliteFiles = readdirSync(new URL("sqlite/", dir)).filter((name) => name.endsWith(".ts"));
for (const { from, to } of pgSchemaFiles(sqliteFiles)) {
  await Bun.write(new URL(to, dir), pgSchemaFrom(await Bun.file(new URL(from, dir)).text(), `src/db/schema/${from}`));
}
console.log("wrote src/db/schema/pg.gen.ts and src/db/schema/pg/");
