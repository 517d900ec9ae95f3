// Postgres restarts (a minor-version upgrade, a managed failover) while the gateway serves:
// every connection drops at once and new ones are refused for a while. Requests meanwhile get
// 503 with x-should-retry, none hangs, streams in flight settle or release exactly once, the
// pool and the sweeper recover by themselves, and every account's books close.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { migrate } from "../../src/db/migrate.ts";
import { openDatabase } from "../../src/db/database.ts";
import { fundedKey, type FundedKey } from "../support/accounts.ts";
import { spawnServe, type ServeProcess } from "../support/binary.ts";
import { expectBooksClosed, openBooks, type Books } from "../support/books.ts";
import { hello, postChat } from "../support/chat.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { postgresBinaries, startOwnCluster, type OwnCluster } from "../support/own-cluster.ts";
import { waitFor } from "../support/wait.ts";

setDefaultTimeout(60_000);
const bin = postgresBinaries();
if (!bin) console.log("note: no PostgreSQL server binaries to run as postgres here; the restart test is skipped");

const DATABASE_TIMEOUT_MS = 1_500;
const LOAD_MS = 7_000;
const DOWN_MS = 2_000;
// What the bounds on answer times allow for a loaded test machine: a bound that catches a hang
// (a request waiting on a database that does not answer), not a speed check.
const SLACK_MS = 1_000;

(bin ? describe : describe.skip)("a Postgres restart under load", () => {
  const fake = startFakeUpstream();
  let cluster: OwnCluster;
  let gateway: ServeProcess;
  let books: Books;
  let customers: FundedKey[];

  beforeAll(async () => {
    cluster = await startOwnCluster(bin!);
    const db = openDatabase(cluster.url);
    await migrate(db);
    await db.close();
    gateway = await spawnServe({
      DATABASE_URL: cluster.url, ...providerEnv(fake), DATABASE_TIMEOUT_MS: String(DATABASE_TIMEOUT_MS),
      RESERVATION_LEASE_MS: "1000", SWEEP_INTERVAL_MS: "100", MAX_CONCURRENT_REQUESTS: "10",
    });
    books = openBooks(cluster.url);
    customers = await Promise.all(Array.from({ length: 6 }, () => fundedKey(books.store, "5")));
    // Each answer takes a while, so that requests and streams are in flight when the server goes.
    fake.behave({ delayMs: 150, chunks: 5 });
  });
  afterAll(async () => {
    await gateway?.stop();
    await books?.close();
    await cluster?.stop();
    await fake.stop();
  });

  test("answers 200 or 503 throughout, recovers by itself, and closes every account's books", async () => {
    const outcomes: { status: number; retry: string | null; stream: boolean; ms: number }[] = [];
    const until = Date.now() + LOAD_MS;
    const load = Promise.all(customers.map(async ({ secret }, i) => {
      for (let n = 0; Date.now() < until; n++) {
        const stream = (n + i) % 2 === 0;
        // A request that hangs fails here rather than holding the test.
        const started = performance.now();
        const res = await postChat(gateway.url, secret, hello("gpt-4.1-nano", { stream }), {}).catch((error: Error) => error);
        if (res instanceof Error) throw res;
        await res.text();
        outcomes.push({ status: res.status, retry: res.headers.get("x-should-retry"), stream, ms: performance.now() - started });
        if (res.status === 503) await Bun.sleep(50); // as a client told to retry would
      }
    }));
    await Bun.sleep(1_500);
    const restartedAt = performance.now();
    const restarted = cluster.restart(DOWN_MS).then(() => performance.now() - restartedAt);
    const [, outageMs] = await Promise.all([load, restarted]);

    const statuses = new Set(outcomes.map((o) => o.status));
    expect([...statuses].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(outcomes.some((o) => o.status === 503)).toBe(true); // the outage was seen …
    expect(outcomes.filter((o) => o.status === 503).every((o) => o.retry === "true")).toBe(true);
    expect(outcomes.slice(-customers.length).every((o) => o.status === 200)).toBe(true); // … and is over
    // A refusal comes within DATABASE_TIMEOUT_MS: no request waits on the database past it. A
    // settlement has no deadline (answering before its outcome is known could charge a client
    // told that the request failed), so an answer may wait out the outage, and no longer.
    const slowest = (list: typeof outcomes) => Math.max(0, ...list.map((o) => o.ms));
    expect(slowest(outcomes.filter((o) => o.status === 503))).toBeLessThan(DATABASE_TIMEOUT_MS + SLACK_MS);
    expect(slowest(outcomes)).toBeLessThan(outageMs + DATABASE_TIMEOUT_MS + SLACK_MS);

    await waitFor(async () => (await fetch(`${gateway.url}/health`)).status === 200, "/health to answer 200", 10_000);
    // Holds whose settlement the outage cut are released by the sweeper once their lease runs out.
    await waitFor(async () => {
      const audits = await Promise.all(customers.map(({ account }) => books.store.auditAccount(account.id)));
      return audits.every((a) => a?.openReservations === 0);
    }, "every hold to be settled or released", 15_000);
    for (const { account } of customers) await expectBooksClosed(books.store, account.id);
    expect((await postChat(gateway.url, customers[0]!.secret, hello())).status).toBe(200);
    expect(gateway.logs.filter((line) => line.includes("unhandled"))).toEqual([]);
    expect(gateway.proc.exitCode).toBeNull();
  });
});
