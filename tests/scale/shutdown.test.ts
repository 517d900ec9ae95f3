// `gateway serve` on SIGTERM: no new connections, requests in flight finish and are charged
// within SHUTDOWN_GRACE_MS, what outlives it is cut off and released, then exit 0.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { spawnServe, type ServeProcess } from "../support/binary.ts";
import { expectBooksClosed, openBooks, usageOutcomes, type Books } from "../support/books.ts";
import { hello, postChat, wireUsage } from "../support/chat.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { refusesConnections } from "../support/instances.ts";
import { waitFor } from "../support/wait.ts";

// Processes start and leases run out in about a second each; a loaded machine needs room beyond bun's 5 s default.
setDefaultTimeout(20_000);
const fake = startFakeUpstream();
afterAll(() => fake.stop());
afterEach(() => fake.behave({}));

const DEFAULT_COST = requestCost(11, 7, FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!);

describeEachDialect("gateway serve on SIGTERM", (dialect) => {
  let testDb: TestDatabase;
  let books: Books;
  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    books = openBooks(testDb.url);
  });
  afterAll(async () => {
    await books.close();
    await testDb.drop();
  });

  /** A gateway with one stream and one plain request for a new account in flight, both held by the fake until `upstream` settles. */
  async function gatewayWithRequestsInFlight(graceMs: number, upstream: Promise<unknown>) {
    const gateway = await spawnServe({ DATABASE_URL: testDb.url, ...providerEnv(fake), SHUTDOWN_GRACE_MS: String(graceMs) });
    fake.behave({ holdUntil: upstream });
    const { secret, account } = await fundedKey(books.store, "1");
    const forwardedBefore = fake.received.length;
    const stream = await postChat(gateway.url, secret, hello("gpt-4.1-nano", { stream: true }));
    // Settled at once into a value: a request the shutdown cuts off rejects while the test waits elsewhere.
    const plain = postChat(gateway.url, secret, hello()).catch((error: Error) => error);
    await waitFor(() => fake.received.length - forwardedBefore === 2, "both requests to reach the provider");
    return { gateway, account, stream, plain };
  }

  async function signalAndWaitForClosedListener(gateway: ServeProcess, signal: NodeJS.Signals) {
    gateway.proc.kill(signal);
    await waitFor(() => refusesConnections(gateway.url), "the listener to close");
    expect(gateway.proc.exitCode).toBeNull(); // still draining
  }

  test("lets requests in flight finish and charges them, refuses new connections, then exits 0", async () => {
    const upstream = Promise.withResolvers<void>();
    const { gateway, account, stream, plain } = await gatewayWithRequestsInFlight(20_000, upstream.promise);
    await signalAndWaitForClosedListener(gateway, "SIGTERM");

    upstream.resolve();
    expect(await stream.text()).toEndWith("data: [DONE]\n\n");
    const answer = (await plain) as Response;
    expect(answer.status).toBe(200);
    expect((await readJson(answer)).usage).toEqual(wireUsage(11, 7, DEFAULT_COST));
    expect(await gateway.proc.exited).toBe(0);

    const audit = await expectBooksClosed(books.store, account.id);
    expect(audit.balance).toBe(nanos(1_000_000_000n - 2n * DEFAULT_COST));
    expect(await usageOutcomes(books.db, account.id)).toEqual([
      { status: "success", error: null },
      { status: "success", error: null },
    ]);
  });

  test("cuts off what still runs when the grace period ends, releases its reservations, then exits 0", async () => {
    const upstream = Promise.withResolvers<void>();
    const { gateway, account, stream, plain } = await gatewayWithRequestsInFlight(300, upstream.promise);
    gateway.proc.kill("SIGTERM");
    expect(await gateway.proc.exited).toBe(0);
    upstream.resolve();

    expect(await stream.text().catch(() => "")).not.toContain("[DONE]");
    expect(await plain).toBeInstanceOf(Error); // the connection was closed under it
    const audit = await expectBooksClosed(books.store, account.id);
    expect(audit.balance).toBe(nanos(1_000_000_000n));
    expect((await usageOutcomes(books.db, account.id)).map((log) => log.status)).toEqual(["error", "error"]);
    expect(gateway.logs.some((line) => line.includes("shutdown grace period over"))).toBe(true);
  });

  test("a second signal ends the grace period at once", async () => {
    const upstream = Promise.withResolvers<void>();
    const { gateway, account, stream } = await gatewayWithRequestsInFlight(600_000, upstream.promise);
    await signalAndWaitForClosedListener(gateway, "SIGTERM");
    gateway.proc.kill("SIGINT");
    expect(await gateway.proc.exited).toBe(0);
    upstream.resolve();

    expect(await stream.text().catch(() => "")).not.toContain("[DONE]");
    const audit = await expectBooksClosed(books.store, account.id);
    expect(audit.balance).toBe(nanos(1_000_000_000n));
  });
});
