import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { renderMigrations } from "../../src/db/migration-files.ts";

test("the embedded migrations match the SQL files in migrations/ (run `make migrations`)", async () => {
  const embedded = readFileSync(new URL("../../src/db/migrations.gen.ts", import.meta.url), "utf8");
  expect(embedded).toBe(await renderMigrations(new URL("../../migrations/", import.meta.url)));
});
