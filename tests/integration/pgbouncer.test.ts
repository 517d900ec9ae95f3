// The gateway behind PgBouncer in transaction mode (DATABASE_PREPARED_STATEMENTS=off): the
// server, its sweeper and outbox, and the CLI all work, and the books close under concurrency.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { runGateway, spawnServe, type ServeProcess } from "../support/binary.ts";
import { expectBooksClosed, openBooks, type Books } from "../support/books.ts";
import { hello, postChat } from "../support/chat.ts";
import { openDatabase } from "../../src/db/database.ts";
import { rows } from "../../src/db/sql.ts";
import { createTestDatabase, dialectsUnderTest, type TestDatabase } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { pgbouncerInstalled, startPgbouncer, type Pooler } from "../support/pgbouncer.ts";
import { signUpUser, uniqueEmail } from "../support/session.ts";

const runs = dialectsUnderTest().includes("postgres") && pgbouncerInstalled();
if (dialectsUnderTest().includes("postgres") && !pgbouncerInstalled()) {
  console.log("note: pgbouncer is not installed (apt-get install pgbouncer; .ci/run does it); the pooler tests are skipped");
}

(runs ? describe : describe.skip)("behind PgBouncer in transaction-pooling mode", () => {
  const fake = startFakeUpstream();
  let pooler: Pooler;
  let testDb: TestDatabase;
  let pooled: string;
  let gateway: ServeProcess;
  let books: Books;
  const env = () => ({ DATABASE_URL: pooled, DATABASE_PREPARED_STATEMENTS: "off" });

  beforeAll(async () => {
    testDb = await createTestDatabase("postgres");
    pooler = await startPgbouncer(testDb.direct); // its own, even when the run has one (TEST_DATABASE_POOLER)
    pooled = pooler.through(testDb.direct);
    gateway = await spawnServe({ ...env(), ...providerEnv(fake), SWEEP_INTERVAL_MS: "100", ALERT_INTERVAL_MS: "50", MAX_CONCURRENT_REQUESTS: "50" });
    books = openBooks(testDb.direct); // the audit reads the database directly
  });
  afterAll(async () => {
    await gateway?.stop();
    await books?.close();
    await pooler?.stop();
    await testDb?.drop();
    await fake.stop();
  });

  test("chat requests, streamed and not, forty at once, are served and every account's books close", async () => {
    const customers = await Promise.all(Array.from({ length: 4 }, () => fundedKey(books.store, "5")));
    const answers = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const res = await postChat(gateway.url, customers[i % 4]!.secret, hello("gpt-4.1-nano", { stream: i % 2 === 0 }));
      await res.text();
      return res.status;
    }));
    expect(answers.filter((status) => status !== 200)).toEqual([]);
    for (const { account } of customers) await expectBooksClosed(books.store, account.id);
  });

  test("a key's hourly request limit holds across two instances sharing the pooler", async () => {
    const second = await spawnServe({ ...env(), ...providerEnv(fake), MAX_CONCURRENT_REQUESTS: "50" });
    try {
      const { secret, account } = await fundedKey(books.store, "5", { requestsPerHour: 5 });
      const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
        const res = await postChat((i % 2 === 0 ? gateway : second).url, secret, hello());
        await res.text();
        return res.status;
      }));
      expect(answers.filter((s) => s === 200)).toHaveLength(5);
      expect(answers.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      await expectBooksClosed(books.store, account.id);
    } finally {
      await second.stop();
    }
  });

  test("sign-up, sessions and keys work through it", async () => {
    const user = await signUpUser(gateway.url);
    const created = await user.send("POST", "/keys/generate", { name: "pooled" });
    expect(created.status).toBe(200);
    expect((await user.send("GET", "/keys/generate")).status).toBe(200);
  });

  test("the CLI works through it", async () => {
    const email = uniqueEmail("pooled");
    for (const args of [["users", "create", "--email", email], ["credits", "grant", "--email", email, "--usd", "2"], ["keys", "create", "--email", email]]) {
      const run = await runGateway(args, env());
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
    }
  });

  test("the sweeper and the outbox run without a statement error", async () => {
    await Bun.sleep(500); // five sweeps and ten outbox rounds
    expect(gateway.logs.filter((line) => /prepared statement|round failed|sweep.*failed|"level":"error"/.test(line))).toEqual([]);
  });

  // The other side: the setting is what makes the tests above pass. PgBouncer hands a released
  // server connection to the next client (last in, first out), where the statement names the
  // previous client prepared are still taken. A second pooler of the test's own, which the
  // server's sweeper and outbox do not use, keeps that order undisturbed.
  describe("with prepared statements on", () => {
    let quiet: Pooler;
    let quietUrl: string;
    const poolerFailure = /prepared statement "\w+" (already exists|does not exist).*set DATABASE_PREPARED_STATEMENTS=off/;
    beforeAll(async () => {
      quiet = await startPgbouncer(testDb.direct);
      quietUrl = quiet.through(testDb.direct);
    });
    afterAll(async () => {
      await quiet?.stop();
    });

    test("a second client through it fails, and with them off it does not", async () => {
      const attempt = async (preparedStatements: boolean): Promise<string[]> => {
        const clients = [0, 1].map(() => openDatabase(quietUrl, { preparedStatements, poolSize: 1 }));
        const failures: string[] = [];
        try {
          for (let round = 0; round < 3; round++) {
            for (const db of clients) {
              await db.run(rows("SELECT ?::int AS n", round)).catch((error: Error) => failures.push(error.message));
            }
          }
        } finally {
          await Promise.all(clients.map((db) => db.close()));
        }
        return failures;
      };
      expect(await attempt(false)).toEqual([]);
      const failures = await attempt(true);
      expect(failures.length).toBeGreaterThan(0);
      for (const message of failures) expect(message).toMatch(poolerFailure);
    });

    test("the CLI fails through it", async () => {
      const runs = [];
      for (let i = 0; i < 3; i++) {
        runs.push(await runGateway(["users", "create", "--email", uniqueEmail("prepared")], { DATABASE_URL: quietUrl, DATABASE_PREPARED_STATEMENTS: "on" }));
      }
      const failed = runs.filter((run) => run.code !== 0);
      expect(failed.length).toBeGreaterThan(0);
      for (const run of failed) expect(run.stderr).toMatch(poolerFailure);
    });

    test("doctor fails the database check through it, saying to turn them off, and passes it with them off", async () => {
      const databaseCheck = async (prepared: string) => {
        const run = await runGateway(["doctor", "--json", "--offline"], { DATABASE_URL: quietUrl, DATABASE_PREPARED_STATEMENTS: prepared });
        const report = JSON.parse(run.stdout) as { checks: { name: string; status: string; message: string }[] };
        return { code: run.code, database: report.checks.find((c) => c.name === "database")! };
      };
      const on = await databaseCheck("on");
      expect(on.code).toBe(1);
      expect(on.database.status).toBe("fail");
      expect(on.database.message).toMatch(poolerFailure);
      expect((await databaseCheck("off")).database.status).toBe("ok");
    });
  });
});
