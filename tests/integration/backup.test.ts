// `gateway backup` beside a server under load: the copy opens with the binary and every
// account's balance is its ledger's sum. On Postgres the command names pg_dump instead.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, linkSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
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
      const run = await runGateway(["backup", "--out", out, "--force", "--json"], { DATABASE_URL: testDb.url });
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

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

function integrity(path: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return db.query("PRAGMA integrity_check").get();
  } finally {
    db.close();
  }
}

describe("gateway backup's destination, and gateway restore, on SQLite", () => {
  let testDb: TestDatabase;
  let server: ServeProcess | undefined;
  let env: Record<string, string>;
  let live: string;
  const dir = mkdtempSync(join(tmpdir(), "gateway-restore-"));

  beforeAll(async () => {
    testDb = await createTestDatabase("sqlite");
    env = { DATABASE_URL: testDb.url };
    live = testDb.url.slice("sqlite:".length);
    server = await spawnServe(env);
  });
  afterAll(async () => {
    await server?.stop();
    await testDb.drop();
  });

  test("a backup is readable by its owner only", async () => {
    const out = join(dir, "fresh.db");
    expect((await runGateway(["backup", "--out", out], env)).code).toBe(0);
    expect(modeOf(out)).toBe("600");
  });

  test("refuses an existing file unless --force, which replaces it", async () => {
    const out = join(dir, "existing.db");
    writeFileSync(out, "an older backup");
    const refused = await runGateway(["backup", "--out", out], env);
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 1, stderr: `error: ${out} already exists; --force replaces it\n` });
    expect(readFileSync(out, "utf8")).toBe("an older backup");
    expect((await runGateway(["backup", "--out", out, "--force"], env)).code).toBe(0);
    expect([integrity(out), modeOf(out)]).toEqual([{ integrity_check: "ok" }, "600"]);
  });

  test("never writes over the live database or its WAL, however it is named, even with --force", async () => {
    const link = join(dir, "symlink.db");
    const hard = join(dir, "hardlink.db");
    symlinkSync(live, link);
    linkSync(live, hard);
    const [parent, name] = [live.slice(0, live.lastIndexOf("/")), live.slice(live.lastIndexOf("/") + 1)];
    for (const out of [live, `${parent}/./${name}`, `${parent}/../${parent.split("/").at(-1)}/${name}`, link, hard, `${live}-wal`]) {
      const run = await runGateway(["backup", "--out", out, "--force"], env);
      expect({ out, code: run.code, stderr: run.stderr }).toEqual({ out, code: 1, stderr: `error: ${out} is the live database's own file; back up elsewhere\n` });
    }
    expect(integrity(live)).toEqual({ integrity_check: "ok" });
    expect((await fetch(`${server!.url}/health`)).status).toBe(200);
  });

  test("restore refuses while a gateway serves the database, and refuses a file that is not a sound database", async () => {
    const backup = join(dir, "to-restore.db");
    expect((await runGateway(["backup", "--out", backup], env)).code).toBe(0);
    const busy = await runGateway(["restore", backup], env);
    expect({ code: busy.code, stderr: busy.stderr }).toEqual({ code: 1, stderr: `error: ${live} is in use by another process (a running gateway?); stop it, then restore\n` });
    const garbage = join(dir, "garbage.db");
    writeFileSync(garbage, "not a database at all, but long enough to look like a header of one".repeat(100));
    const bad = await runGateway(["restore", garbage], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toStartWith(`error: ${garbage} is not a sound gateway database:`);
    expect((await fetch(`${server!.url}/health`)).status).toBe(200);
  });

  test("restore, with the server stopped, puts the backup in place: later changes are gone", async () => {
    const backup = join(dir, "before-disable.db");
    expect((await runGateway(["backup", "--out", backup], env)).code).toBe(0);
    expect((await runGateway(["models", "disable", "gpt-4o", "--json"], env)).stdout).toContain('"enabled": false');
    expect(await server!.stop()).toBe(0);
    server = undefined;
    const run = await runGateway(["restore", backup, "--json"], env);
    expect({ code: run.code, stderr: run.stderr, out: JSON.parse(run.stdout) }).toEqual({ code: 0, stderr: "", out: { restored: backup, to: live } });
    expect([existsSync(`${live}-wal`), existsSync(`${live}-shm`), modeOf(live), integrity(live)]).toEqual([false, false, "600", { integrity_check: "ok" }]);
    const models = JSON.parse((await runGateway(["models", "list", "--json"], env)).stdout) as { id: string; enabled: boolean }[];
    expect(models.find((m) => m.id === "gpt-4o")?.enabled).toBe(true);
    server = await spawnServe(env);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
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

  test("restore names pg_restore, with the command to run, and exits 1", async () => {
    const run = await runGateway(["restore", "/var/backups/gw.dump"], { DATABASE_URL: testDb.url });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      "error: a PostgreSQL database is restored with its own tool, into an empty database; run:\n  pg_restore --no-owner --dbname=\"$DATABASE_URL\" '/var/backups/gw.dump'",
    );
  });
});
