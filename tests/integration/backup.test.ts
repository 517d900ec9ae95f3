// `gateway backup` beside a server under load: the copy opens with the binary and every
// account's balance is its ledger's sum. On Postgres the command names pg_dump instead.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fundedKey, type FundedKey } from "../support/accounts.ts";
import { runGateway, spawnServe, type ServeProcess } from "../support/binary.ts";
import { openBooks, type Books } from "../support/books.ts";
import { hello, postChat } from "../support/chat.ts";
import { createTestDatabase, describeOnPostgres, type TestDatabase } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";

const LOAD_MS = 3_000;

describe("gateway backup on SQLite, while the server serves chat", () => {
  const fake = startFakeUpstream();
  let testDb: TestDatabase;
  let server: ServeProcess;
  let books: Books;
  let customers: FundedKey[];
  const dir = mkdtempSync(join(tmpdir(), "gateway-backup-"));
  const out = join(dir, "gateway-backup.db");

  beforeAll(async () => {
    testDb = await createTestDatabase("sqlite");
    server = await spawnServe({ DATABASE_URL: testDb.url, ...providerEnv(fake) });
    books = openBooks(testDb.url);
    customers = await Promise.all(Array.from({ length: 8 }, () => fundedKey(books.store, "10")));
  });
  afterAll(async () => {
    await server.stop();
    await books.close();
    await testDb.drop();
    await fake.stop();
  });

  test("copies a consistent database that the binary opens, balance = ledger for every account", async () => {
    // Requests keep coming, eight at a time, for a bounded time; backups are taken meanwhile.
    const until = Date.now() + LOAD_MS;
    let served = 0;
    const load = Promise.all(customers.map(async ({ secret }) => {
      while (Date.now() < until) {
        const res = await postChat(server.url, secret, hello());
        await res.text();
        if (res.status === 200) served++;
      }
    }));
    const backups: number[] = [];
    while (Date.now() < until - 500) {
      const run = await runGateway(["backup", "--out", out, "--json"], { DATABASE_URL: testDb.url });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      backups.push(JSON.parse(run.stdout).bytes);
    }
    await load;
    expect(served).toBeGreaterThan(0);
    expect(backups.length).toBeGreaterThanOrEqual(2); // the second replaced the first
    expect(existsSync(`${out}.partial-${process.pid}`)).toBe(false);

    const check = new Database(out, { readonly: true });
    expect(check.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    check.close();
    const copy = { DATABASE_URL: `sqlite:${out}` };
    let charged = 0;
    for (const { account } of customers) {
      const show = await runGateway(["credits", "show", "--email", account.email, "--json"], copy);
      expect(show.code).toBe(0);
      const view = JSON.parse(show.stdout);
      expect(view.balanceUsd).toBe(view.ledgerSumUsd);
      if (view.balanceUsd !== "10.000000000") charged++;
    }
    // The copy is of a moment under load: some charges are in it.
    expect(charged).toBeGreaterThan(0);
  });

  test("an unwritable destination fails with exit 1 and leaves nothing behind", async () => {
    const run = await runGateway(["backup", "--out", join(dir, "no-such-dir", "x.db")], { DATABASE_URL: testDb.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toStartWith("error: backup failed:");
  });
});

describeOnPostgres("gateway backup on Postgres", () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase("postgres");
  });
  afterAll(() => testDb.drop());

  test("names pg_dump, with the command to run, and exits 1", async () => {
    const run = await runGateway(["backup", "--out", "/var/backups/gw.dump"], { DATABASE_URL: testDb.url });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      "error: a PostgreSQL database is backed up with its own tool; run:\n  pg_dump --format=custom --file='/var/backups/gw.dump' \"$DATABASE_URL\"",
    );
    expect(run.stderr).not.toContain(new URL(testDb.url).pathname.slice(1));
  });
});
