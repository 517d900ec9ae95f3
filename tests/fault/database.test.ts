// The database becomes unreachable under a running gateway, then comes back. The gateway must
// answer (never hang, never crash) while it is gone, and resume by itself when it returns.
import { Database as SqliteClient } from "bun:sqlite";
import { SQL } from "bun";
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { spawnServe, type ServeProcess } from "../support/binary.ts";
import { expectBooksClosed, openBooks, usageOutcomes, type Books } from "../support/books.ts";
import { chatErrorShape, hello, postChat } from "../support/chat.ts";
import { createTestDatabase, describeOnPostgres, type TestDatabase } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { startPausingProxy, type PausingProxy } from "../support/pausing-proxy.ts";
import { waitFor } from "../support/wait.ts";

// Processes start and leases run out in about a second each; a loaded machine needs room beyond bun's 5 s default.
setDefaultTimeout(20_000);
const fake = startFakeUpstream();
afterAll(() => fake.stop());
afterEach(() => fake.behave({}));

const DEFAULT_COST = requestCost(11, 7, FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!);
const UNAVAILABLE = chatErrorShape(503, "service_unavailable_error");

function useGatewayProcess(dialect: "sqlite" | "postgres", env: Record<string, string> = {}) {
  let testDb: TestDatabase | undefined;
  let books: Books | undefined;
  let gateway: ServeProcess | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    gateway = await spawnServe({ DATABASE_URL: testDb.url, ...providerEnv(fake), ...env });
    books = openBooks(testDb.url);
  });
  afterAll(async () => {
    await gateway?.stop();
    await books?.close();
    await testDb?.drop();
  });
  return () => ({ gateway: gateway!, books: books!, testDb: testDb! });
}

describeOnPostgres("the Postgres database refuses connections, then comes back", () => {
  const running = useGatewayProcess("postgres", { RESERVATION_LEASE_MS: "1000", SWEEP_INTERVAL_MS: "100" });
  const admin = new SQL(process.env.TEST_DATABASE_URL ?? "", { max: 1 });
  afterAll(() => admin.close());

  // Deterministic and real: Postgres itself ends every session and refuses new ones.
  const databaseName = () => new URL(running().testDb.url).pathname.slice(1);
  const takeDown = async () => {
    await admin.unsafe(`ALTER DATABASE ${databaseName()} ALLOW_CONNECTIONS false`);
    await admin.unsafe("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [databaseName()]);
  };
  const bringBack = () => admin.unsafe(`ALTER DATABASE ${databaseName()} ALLOW_CONNECTIONS true`);
  const healthy = async () => (await fetch(`${running().gateway.url}/health`)).status === 200;

  test("while it is gone: /health 503, /models from the fallback, chat 503 with nothing forwarded; then it resumes by itself", async () => {
    const { gateway, books } = running();
    const { secret, account } = await fundedKey(books.store, "1");
    expect((await postChat(gateway.url, secret, hello())).status).toBe(200);

    await takeDown();
    try {
      const health = await fetch(`${gateway.url}/health`);
      expect(health.status).toBe(503);
      expect(await readJson(health)).toEqual({ status: "error", db: "disconnected", ts: expect.any(Number) });

      const models = await fetch(`${gateway.url}/models`);
      expect(models.status).toBe(200);
      expect(models.headers.get("x-gateway-model-source")).toBe("fallback");
      expect((await readJson(models)).map((m: { model_id: string }) => m.model_id)).toEqual(FALLBACK_CATALOG.map((m) => m.id));

      const forwardedBefore = fake.received.length;
      for (const stream of [false, true]) {
        const chat = await postChat(gateway.url, secret, hello("gpt-4.1-nano", { stream }));
        expect(chat.status).toBe(503);
        expect(await readJson(chat)).toEqual(UNAVAILABLE);
      }
      expect(fake.received.length).toBe(forwardedBefore);
      expect(gateway.proc.exitCode).toBeNull();
    } finally {
      await bringBack();
    }

    await waitFor(healthy, "/health to answer 200 again", 10_000);
    expect((await postChat(gateway.url, secret, hello())).status).toBe(200);
    expect((await fetch(`${gateway.url}/models`)).headers.get("x-gateway-model-source")).toBeNull();
    const audit = await expectBooksClosed(books.store, account.id);
    expect(audit.balance).toBe(nanos(1_000_000_000n - 2n * DEFAULT_COST));
  });

  test("a stream in flight when it goes: the client gets an error chunk, and the reservation is released once it is back, not charged", async () => {
    const { gateway, books } = running();
    const upstream = Promise.withResolvers<void>();
    fake.behave({ holdUntil: upstream.promise });
    const { secret, account } = await fundedKey(books.store, "1");
    const forwardedBefore = fake.received.length;
    const stream = await postChat(gateway.url, secret, hello("gpt-4.1-nano", { stream: true }));
    await waitFor(() => fake.received.length > forwardedBefore, "the stream to reach the provider");

    await takeDown();
    let events: string[];
    try {
      upstream.resolve(); // the provider finishes, but the charge cannot be written
      events = (await stream.text()).split("\n\n").filter(Boolean);
    } finally {
      await bringBack();
    }
    expect(events).not.toContain("data: [DONE]");
    expect(JSON.parse(events.at(-1)!.slice("data: ".length))).toHaveProperty("error");

    await waitFor(async () => (await books.store.auditAccount(account.id).catch(() => null))?.openReservations === 0, "the release to be written once it is back", 10_000);
    const audit = await expectBooksClosed(books.store, account.id);
    expect(audit.balance).toBe(nanos(1_000_000_000n));
    expect((await usageOutcomes(books.db, account.id)).map((log) => log.status)).toEqual(["error"]);
  });
});

describeOnPostgres("the Postgres database stops answering, as behind a network partition, then answers again", () => {
  let proxy: PausingProxy | undefined;
  let testDb: TestDatabase | undefined;
  let books: Books | undefined;
  let gateway: ServeProcess | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase("postgres");
    const direct = new URL(testDb.url);
    proxy = await startPausingProxy({ hostname: direct.hostname, port: Number(direct.port || 5432) });
    const throughProxy = new URL(testDb.url);
    throughProxy.port = String(proxy.port);
    gateway = await spawnServe({ DATABASE_URL: throughProxy.toString(), ...providerEnv(fake), DATABASE_TIMEOUT_MS: "2000" });
    books = openBooks(testDb.url);
  });
  afterAll(async () => {
    proxy?.resume();
    await gateway?.stop();
    proxy?.stop();
    await books?.close();
    await testDb?.drop();
  });

  test("chat answers 503 at DATABASE_TIMEOUT_MS instead of hanging, /health 503, /models from the fallback; it resumes when the network heals", async () => {
    const { secret, account } = await fundedKey(books!.store, "1");
    const url = gateway!.url;
    expect((await postChat(url, secret, hello())).status).toBe(200);

    proxy!.pause();
    const forwardedBefore = fake.received.length;
    try {
      const [plain, stream, health, models] = await Promise.all([
        postChat(url, secret, hello()),
        postChat(url, secret, hello("gpt-4.1-nano", { stream: true })),
        fetch(`${url}/health`),
        fetch(`${url}/models`),
      ]);
      for (const chat of [plain, stream]) {
        expect(chat.status).toBe(503);
        expect(await readJson(chat)).toEqual(UNAVAILABLE);
      }
      expect(health.status).toBe(503);
      expect(models.headers.get("x-gateway-model-source")).toBe("fallback");
      expect(fake.received.length).toBe(forwardedBefore);
    } finally {
      proxy!.resume();
    }

    await waitFor(async () => (await fetch(`${url}/health`)).status === 200, "/health to answer 200 again", 10_000);
    expect((await postChat(url, secret, hello())).status).toBe(200);
    // An admission the partition held may commit only now, after its request gave up; it is
    // released as soon as it does. The books are read once nothing is held.
    await waitFor(async () => (await books!.store.getAccount(account.id))?.inflight === 0, "late admissions to be released", 10_000);
    const audit = await expectBooksClosed(books!.store, account.id);
    expect(audit.balance).toBe(nanos(1_000_000_000n - 2n * DEFAULT_COST));
  });

  test("a client that leaves while its request waits for the database is neither forwarded nor charged", async () => {
    const { secret, account } = await fundedKey(books!.store, "1");
    const forwardedBefore = fake.received.length;
    proxy!.pause();
    const client = new AbortController();
    const leaving = fetch(`${gateway!.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(hello()),
      signal: client.signal,
    }).catch((error: Error) => error);
    try {
      await waitFor(() => proxy!.heldBytes() > 0, "the request to wait on the database");
      client.abort();
      expect(await leaving).toBeInstanceOf(Error);
    } finally {
      proxy!.resume();
    }
    await waitFor(async () => (await usageOutcomes(books!.db, account.id)).length > 0 || fake.received.length > forwardedBefore, "the request to end");
    expect(fake.received.length).toBe(forwardedBefore);
    const audit = await expectBooksClosed(books!.store, account.id);
    expect(audit.balance).toBe(nanos(1_000_000_000n));
    // It was admitted (reserved) before the gateway saw that its client had gone, then released.
    expect((await usageOutcomes(books!.db, account.id)).map((log) => log.status)).toEqual(["error"]);
  });
});

describe("the SQLite database is write-locked by another process, then released", () => {
  const running = useGatewayProcess("sqlite");

  test("chat answers 503 with the chat error body after the busy timeout rather than hanging, then resumes", async () => {
    const { gateway, books, testDb } = running();
    const { secret, account } = await fundedKey(books.store, "1");
    expect((await postChat(gateway.url, secret, hello())).status).toBe(200);

    // Another process (here: the test) holds the write lock, as a long backup or a stuck CLI would.
    const locker = new SqliteClient(testDb.url.slice("sqlite:".length));
    locker.exec("BEGIN EXCLUSIVE");
    const forwardedBefore = fake.received.length;
    try {
      const chat = await postChat(gateway.url, secret, hello());
      expect(chat.status).toBe(503);
      expect(await readJson(chat)).toEqual(UNAVAILABLE);
      expect(fake.received.length).toBe(forwardedBefore);
    } finally {
      locker.exec("ROLLBACK");
      locker.close();
    }

    expect((await postChat(gateway.url, secret, hello())).status).toBe(200);
    const audit = await expectBooksClosed(books.store, account.id);
    expect(audit.balance).toBe(nanos(1_000_000_000n - 2n * DEFAULT_COST));
  });
});
