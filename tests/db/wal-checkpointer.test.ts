// SQLite's WAL is checkpointed by a thread of its own (src/db/wal-checkpointer.ts), never by
// the connection that serves requests, and what was committed stays committed.
import { Database as SqliteClient } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Database } from "../../src/db/database.ts";
import { exec, first } from "../../src/db/sql.ts";
import { BACKSTOP_PAGES } from "../../src/db/wal-checkpointer.ts";
import { waitFor } from "../support/wait.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "gw-wal-"));
  dirs.push(dir);
  return dir;
};
const failures: string[] = [];
const withCheckpointer = (path: string): Database =>
  openDatabase(`sqlite:${path}`, { checkpoints: { maxIdleMs: 20, onFailure: (reason) => failures.push(reason) } });

/** Rows in the database file alone, as a copy without its WAL reads it; null while the copy is not whole. */
function rowsInMainFile(path: string, dir: string): number | null {
  const copy = join(dir, "main-only.db");
  copyFileSync(path, copy);
  try {
    const client = new SqliteClient(copy, { readonly: true });
    try {
      return Number((client.query("SELECT count(*) AS n FROM notes").get() as { n: number }).n);
    } finally {
      client.close();
    }
  } catch {
    return null;
  }
}

describe("the WAL checkpointer", () => {
  test("the serving connection never checkpoints, and the checkpointer copies the WAL into the database file", async () => {
    const dir = scratch();
    const path = join(dir, "gateway.db");
    const db = withCheckpointer(path);
    try {
      expect(await db.run(first("PRAGMA wal_autocheckpoint"))).toEqual({ wal_autocheckpoint: BigInt(BACKSTOP_PAGES) });
      await db.run(exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"));
      // 1,500 rows of 2 KB: more pages than SQLite's own checkpoint threshold (1,000).
      for (let batch = 0; batch < 15; batch++) {
        await Promise.all(Array.from({ length: 100 }, () => db.transaction(exec("INSERT INTO notes (body) VALUES (?)", "x".repeat(2048)))));
      }
      await waitFor(() => rowsInMainFile(path, dir) === 1500, "the rows in the database file without its WAL", 5_000, 20);
      expect(failures).toEqual([]);
    } finally {
      await db.close();
    }
  });

  test("a committed transaction survives the process being killed", async () => {
    const dir = scratch();
    const path = join(dir, "gateway.db");
    const setup = withCheckpointer(path);
    await setup.run(exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"));
    await setup.close();
    const script = `
      import { openDatabase } from ${JSON.stringify(new URL("../../src/db/database.ts", import.meta.url).pathname)};
      import { exec } from ${JSON.stringify(new URL("../../src/db/sql.ts", import.meta.url).pathname)};
      const db = openDatabase(${JSON.stringify(`sqlite:${path}`)}, { checkpoints: { maxIdleMs: 60000, onFailure() {} } });
      await db.transaction(exec("INSERT INTO notes (body) VALUES ('charged')"));
      console.log("committed");
      setInterval(() => {}, 1000);
    `;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
    const reader = child.stdout.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain("committed");
    child.kill("SIGKILL");
    await child.exited;
    const db = openDatabase(`sqlite:${path}`);
    try {
      expect(await db.run(first("SELECT body FROM notes"))).toEqual({ body: "charged" });
    } finally {
      await db.close();
    }
  });
});
