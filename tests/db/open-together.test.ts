// Instances started together on a new SQLite file each open it at once: the one that turns it to
// WAL holds the write lock meanwhile, and the others must wait for it rather than fail.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const OPEN = new URL("../../src/db/database.ts", import.meta.url).pathname;
// Opens the database and writes, as a starting instance does (migrations, then its first writes).
const script = `
  const { openDatabase } = await import(${JSON.stringify(OPEN)});
  const db = openDatabase(process.argv.at(-1));
  await db.run(function* () { yield { text: "CREATE TABLE IF NOT EXISTS started (at INTEGER)", params: [] }; }());
  await db.close();
`;

test("processes opening a new SQLite file at once all open it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-open-together-"));
  try {
    for (let round = 0; round < 5; round++) {
      const path = join(dir, `round-${round}.db`);
      const procs = Array.from({ length: 4 }, () =>
        Bun.spawn([process.execPath, "-e", script, `sqlite:${path}`], { stdout: "pipe", stderr: "pipe" }));
      const outcomes = await Promise.all(procs.map(async (proc) => ({ code: await proc.exited, error: (await new Response(proc.stderr).text()).trim() })));
      expect(outcomes).toEqual(Array.from({ length: 4 }, () => ({ code: 0, error: "" })));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
