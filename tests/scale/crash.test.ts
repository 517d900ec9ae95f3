// `kill -9` of a gateway process with requests and streams in flight: nothing it held stays
// reserved. Its leases run out (RESERVATION_LEASE_MS) and whichever process sweeps next, the
// restarted one or another instance, releases them and logs the error; the ledger still adds up.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { nanos } from "../../src/core/money.ts";
import type { Account } from "../../src/core/store.ts";
import { fundedKey } from "../support/accounts.ts";
import { spawnServe, type ServeProcess } from "../support/binary.ts";
import { expectBooksClosed, openBooks, usageOutcomes, type Books } from "../support/books.ts";
import { hello, postChat } from "../support/chat.ts";
import { createTestDatabase, describeEachDialect, describeOnPostgres, type TestDatabase } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { waitFor } from "../support/wait.ts";

// Processes start and leases run out in about a second each; a loaded machine needs room beyond bun's 5 s default.
setDefaultTimeout(20_000);
const fake = startFakeUpstream();
afterAll(() => fake.stop());
afterEach(() => fake.behave({}));

const LEASE_EXPIRED = "Reservation lease expired: the gateway process handling the request stopped before it finished";
/** A one-second lease (the shortest allowed) swept every 100 ms: recovery takes about a second. */
const SHORT_LEASES = { RESERVATION_LEASE_MS: "1000", SWEEP_INTERVAL_MS: "100" };
/** Lease expiry, a sweep, and room for a loaded machine. */
const RECOVERY_TIMEOUT_MS = 10_000;

function useDatabase(dialect: "sqlite" | "postgres") {
  let testDb: TestDatabase | undefined;
  let books: Books | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    books = openBooks(testDb.url);
  });
  afterAll(async () => {
    await books?.close();
    await testDb?.drop();
  });
  return () => ({ books: books!, env: { DATABASE_URL: testDb!.url, ...providerEnv(fake), ...SHORT_LEASES } });
}

/**
 * Puts two streams and one plain request of a new account in flight on `victim` (held by the
 * fake), then kills it with SIGKILL: no handler, no release, no goodbye.
 */
async function killWithRequestsInFlight(victim: ServeProcess, books: Books, upstream: Promise<unknown>): Promise<Account> {
  fake.behave({ holdUntil: upstream });
  const { secret, account } = await fundedKey(books.store, "1");
  const forwardedBefore = fake.received.length;
  const streams = await Promise.all([1, 2].map(() => postChat(victim.url, secret, hello("gpt-4.1-nano", { stream: true }))));
  for (const stream of streams) await stream.body!.getReader().read();
  const plain = postChat(victim.url, secret, hello()).catch((error: Error) => error);
  await waitFor(() => fake.received.length - forwardedBefore === 3, "all three requests to reach the provider");
  expect((await books.store.auditAccount(account.id))!.openReservations).toBe(3);

  victim.proc.kill("SIGKILL");
  await victim.proc.exited;
  expect(await plain).toBeInstanceOf(Error); // its connection died with the process
  return account;
}

async function expectReleasedByLeaseExpiry(books: Books, account: Account): Promise<void> {
  await waitFor(
    async () => (await books.store.auditAccount(account.id))!.openReservations === 0,
    "the killed process's reservations to be swept",
    RECOVERY_TIMEOUT_MS,
  );
  const audit = await expectBooksClosed(books.store, account.id);
  expect(audit.balance).toBe(nanos(1_000_000_000n));
  expect(await usageOutcomes(books.db, account.id)).toEqual(Array(3).fill({ status: "error", error: LEASE_EXPIRED }));
}

describeEachDialect("kill -9 with requests in flight, then a restart", (dialect) => {
  const database = useDatabase(dialect);

  test("the restarted process releases what the killed one held, logs each as an error, and serves the account again", async () => {
    const { books, env } = database();
    const upstream = Promise.withResolvers<void>();
    const victim = await spawnServe(env);
    const account = await killWithRequestsInFlight(victim, books, upstream.promise);
    // Nothing else runs on this database: the reservations outlive the process that held them.
    expect((await books.store.auditAccount(account.id))!.openReservations).toBe(3);

    const restarted = await spawnServe(env);
    try {
      await expectReleasedByLeaseExpiry(books, account);
      upstream.resolve();
      fake.behave({});
      const { secret } = await fundedKey(books.store, "1");
      expect((await postChat(restarted.url, secret, hello())).status).toBe(200);
    } finally {
      upstream.resolve();
      await restarted.stop();
    }
  });
});

describeOnPostgres("kill -9 of one of two instances", () => {
  const database = useDatabase("postgres");

  test("the surviving instance releases what the killed one held while it stays down", async () => {
    const { books, env } = database();
    const upstream = Promise.withResolvers<void>();
    const [victim, survivor] = await Promise.all([spawnServe(env), spawnServe(env)]);
    try {
      const account = await killWithRequestsInFlight(victim!, books, upstream.promise);
      await expectReleasedByLeaseExpiry(books, account);
    } finally {
      upstream.resolve();
      await survivor!.stop();
    }
  });

  test("killed in the middle of a burst: whatever it had committed is settled or released, and the ledger adds up", async () => {
    const { books, env } = database();
    const [victim, survivor] = await Promise.all([spawnServe(env), spawnServe(env)]);
    try {
      fake.behave({ chunks: 20 }); // streams take a while, so some are mid-way when the process dies
      const { secret, account } = await fundedKey(books.store, "1");
      const forwardedBefore = fake.received.length;
      const burst = Array.from({ length: 30 }, (_, i) =>
        postChat(victim!.url, secret, hello("gpt-4.1-nano", { stream: i % 2 === 0 }))
          .then((r) => r.text())
          .catch(() => "cut"),
      );
      await waitFor(() => fake.received.length - forwardedBefore >= 3, "the burst to be under way");
      victim!.proc.kill("SIGKILL");
      await Promise.all(burst);
      await waitFor(
        async () => (await books.store.auditAccount(account.id))!.openReservations === 0,
        "the killed process's reservations to be swept",
        RECOVERY_TIMEOUT_MS,
      );
      await expectBooksClosed(books.store, account.id);
    } finally {
      await survivor!.stop();
    }
  });
});
