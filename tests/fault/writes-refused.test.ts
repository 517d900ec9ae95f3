// The database answers reads but refuses writes under a running gateway (a read-only database,
// a privilege taken away; a full disk is the same to the gateway), then takes them again. A
// request whose settlement could not be written must not keep its concurrency slot until its
// lease runs out, and /health must say the database cannot be written.
import { SQL } from "bun";
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { exec } from "../../src/db/sql.ts";
import { fundedKey } from "../support/accounts.ts";
import { expectBooksClosed, usageOutcomes } from "../support/books.ts";
import { chatErrorShape, hello, postChat } from "../support/chat.ts";
import { createTestDatabase, describeOnPostgres, type TestDatabase } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { startGateway, useGateway, type TestGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

setDefaultTimeout(60_000);
const ONE_REQUEST = requestCost(11, 7, FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!);
const fake = startFakeUpstream();
afterAll(() => fake.stop());

// One request at a time per account, and a lease far longer than the test: a slot freed within
// the test was freed by the gateway, not by the sweeper.
const ENV = { ...providerEnv(fake), MAX_CONCURRENT_REQUESTS: "1", RESERVATION_LEASE_MS: "300000" };

/** A request forwarded while writes work, answered by the provider once they no longer do. */
async function settledWhileRefused(gateway: TestGateway, secret: string, refuse: () => Promise<unknown>) {
  const upstream = Promise.withResolvers<void>();
  fake.behave({ holdUntil: upstream.promise });
  const forwardedBefore = fake.received.length;
  const answer = postChat(gateway.url, secret, hello());
  await waitFor(() => fake.received.length > forwardedBefore, "the request to reach the provider", 20_000);
  await refuse();
  upstream.resolve();
  const res = await answer;
  fake.behave({});
  return res;
}

async function expectRecovered(gateway: TestGateway, secret: string, accountId: string) {
  const next = await postChat(gateway.url, secret, hello());
  expect(next.status).toBe(200);
  const health = await fetch(`${gateway.url}/health`);
  expect(health.status).toBe(200);
  // Released (not charged) and logged as an error; the next request charged as usual.
  const audit = await expectBooksClosed(gateway.store, accountId);
  expect(audit.balance).toBe(nanos(1_000_000_000n - ONE_REQUEST));
  expect((await usageOutcomes(gateway.db, accountId)).map((log) => log.status).sort()).toEqual(["error", "success"]);
}

const refusedHealth = async (gateway: TestGateway) => {
  const health = await fetch(`${gateway.url}/health`);
  expect([health.status, await readJson(health)]).toEqual([503, { status: "error", db: "disconnected", ts: expect.any(Number) }]);
};

describe("the SQLite database turns read-only under a running gateway, then writable again", () => {
  const gateway = useGateway("sqlite", ENV);
  // The gateway's own connection refuses writes as a read-only file does (SQLITE_READONLY). A
  // chmod would not do: the file is open already, and the tests run as root.
  const queryOnly = (on: boolean) => gateway().db.run(exec(`PRAGMA query_only = ${on ? "ON" : "OFF"}`));

  test("the failed settlement's slot is free on the next request, and /health is 503 meanwhile", async () => {
    const { secret, account } = await fundedKey(gateway().store, "1");
    const res = await settledWhileRefused(gateway(), secret, () => queryOnly(true));
    try {
      expect([res.status, await readJson(res)]).toEqual([503, chatErrorShape(503, "service_unavailable_error")]);
      await refusedHealth(gateway());
    } finally {
      await queryOnly(false);
    }
    await expectRecovered(gateway(), secret, account.id);
  });
});

describeOnPostgres("the Postgres role loses INSERT on usage_logs mid-run, then gets it back", () => {
  const role = `gw_writer_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new SQL(process.env.TEST_DATABASE_URL ?? "", { max: 1 });
  let gateway: TestGateway | undefined;
  let testDb: TestDatabase | undefined;
  const onDb = () => new SQL(testDb!.direct, { max: 1 });

  afterAll(async () => {
    await gateway?.stop();
    await testDb?.drop();
    await admin.unsafe(`DROP ROLE IF EXISTS ${role}`);
    await admin.close();
  });

  test("the failed settlement's slot is free on the next request, and /health is 503 meanwhile", async () => {
    testDb = await createTestDatabase("postgres");
    // Migrated by the database's owner, then served by a role granted what serve needs.
    await (await startGateway("postgres", {}, testDb)).stop();
    await admin.unsafe(`CREATE ROLE ${role} LOGIN`);
    const db = onDb();
    await db.unsafe(`GRANT USAGE, CREATE ON SCHEMA public TO ${role}`);
    await db.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
    await db.unsafe(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    const asRole = new URL(testDb.direct);
    asRole.username = role;
    gateway = await startGateway("postgres", ENV, { ...testDb, url: asRole.toString(), direct: asRole.toString() });
    try {
      const { secret, account } = await fundedKey(gateway.store, "1");
      const res = await settledWhileRefused(gateway, secret, () => db.unsafe(`REVOKE INSERT ON usage_logs FROM ${role}`));
      try {
        expect([res.status, await readJson(res)]).toEqual([503, chatErrorShape(503, "service_unavailable_error")]);
        await refusedHealth(gateway);
      } finally {
        await db.unsafe(`GRANT INSERT ON usage_logs TO ${role}`);
      }
      await expectRecovered(gateway, secret, account.id);
    } finally {
      await gateway.stop();
      gateway = undefined;
      await db.close();
    }
  });
});
