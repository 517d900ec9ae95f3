// SQLite's transactions with group commit (src/db/database.ts): the transactions asked for in one
// turn of the event loop share a commit, each in a savepoint of its own; one asked for alone runs
// without one, and at once while the turn before was quiet. Either way a transaction that fails
// is undone alone and told its own error.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Database } from "../../src/db/database.ts";
import { exec, rows, type Work } from "../../src/db/sql.ts";

let dir: string;
let db: Database;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gw-group-commit-"));
  db = openDatabase(`sqlite:${join(dir, "group.db")}`);
  await db.run(exec("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)"));
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const notes = async () => (await db.run(rows("SELECT id FROM notes ORDER BY id"))).map((row) => row.id);

/** Writes a note, then fails when asked to, after its write. */
function* note(id: string, fail = false): Work<string> {
  yield* exec("INSERT INTO notes (id, body) VALUES (?, ?)", id, `note ${id}`);
  if (fail) throw new Error(`note ${id} failed`);
  return id;
}

test("a transaction alone that fails after writing is undone and told its own error; the next one commits", async () => {
  await expect(db.transaction(note("alone-1", true))).rejects.toThrow("note alone-1 failed");
  expect(await notes()).toEqual([]);
  expect(await db.transaction(note("alone-2"))).toBe("alone-2");
  expect(await notes()).toEqual(["alone-2"]);
});

test("transactions asked for together share a commit: the one that fails is undone alone", async () => {
  const outcomes = await Promise.allSettled([
    db.transaction(note("together-1")),
    db.transaction(note("together-2", true)),
    db.transaction(note("together-3")),
  ]);
  expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual([
    "together-1", "note together-2 failed", "together-3",
  ]);
  expect(await notes()).toEqual(["alone-2", "together-1", "together-3"]);
});

test("a transaction that breaks a constraint alone leaves the connection ready for the next", async () => {
  await expect(db.transaction(note("alone-2"))).rejects.toThrow(/UNIQUE/);
  expect(await db.transaction(note("alone-3"))).toBe("alone-3");
  expect(await notes()).toEqual(["alone-2", "alone-3", "together-1", "together-3"]);
});

test("on a closed database each transaction is told the database's error, alone or together", async () => {
  const closed = openDatabase(`sqlite:${join(dir, "closed.db")}`);
  await closed.run(exec("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)"));
  await closed.close();
  await expect(closed.transaction(note("alone"))).rejects.toThrow(/closed database/);
  const together = await Promise.allSettled([closed.transaction(note("one")), closed.transaction(note("two"))]);
  expect(together.map((o) => o.status)).toEqual(["rejected", "rejected"]);
});

/** Writes a note, recording in `ran` when its work ran. */
function* marked(id: string, ran: string[]): Work<string> {
  ran.push(id);
  return yield* note(id);
}

const turnEnd = () => new Promise<void>((resolve) => setImmediate(resolve));

test("while turns are quiet the first transaction of a turn runs at once; after a busy turn the next one waits for its turn's end", async () => {
  await turnEnd();
  await turnEnd();
  const ran: string[] = [];
  const alone = db.transaction(marked("quiet-1", ran));
  expect(ran).toEqual(["quiet-1"]);
  await alone;
  await turnEnd();
  // A busy turn: its first at once, the others together at its end.
  const busy = [db.transaction(marked("busy-1", ran)), db.transaction(marked("busy-2", ran)), db.transaction(marked("busy-3", ran))];
  expect(ran).toEqual(["quiet-1", "busy-1"]);
  expect(await Promise.all(busy)).toEqual(["busy-1", "busy-2", "busy-3"]);
  // The turn after it waits from its first, and being quiet, makes the next run at once again.
  const after = db.transaction(marked("after-busy", ran));
  expect(ran).toEqual(["quiet-1", "busy-1", "busy-2", "busy-3"]);
  await after;
  await turnEnd();
  const again = db.transaction(marked("quiet-2", ran));
  expect(ran.at(-1)).toBe("quiet-2");
  await again;
  expect(await notes()).toEqual(expect.arrayContaining(["quiet-1", "busy-1", "busy-2", "busy-3", "after-busy", "quiet-2"]));
});
