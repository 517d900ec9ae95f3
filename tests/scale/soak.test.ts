// Many streams opened and closed against one `gateway serve`: some read to [DONE], some cut off
// by the client midway. Afterwards nothing is reserved or in flight, every request has its usage
// log, every charge its success log, no upstream stream is left open, and the server's memory
// has not grown with the number of streams.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { spawnServe } from "../support/binary.ts";
import { expectBooksClosed, openBooks, usageOutcomes } from "../support/books.ts";
import { hello, postChat } from "../support/chat.ts";
import { createTestDatabase, describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { waitFor } from "../support/wait.ts";

setDefaultTimeout(60_000);

const fake = startFakeUpstream();
afterAll(() => fake.stop());

const DEFAULT_COST = requestCost(11, 7, FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!);
const WARM_UP_STREAMS = 100;
const SOAK_STREAMS = 500;
const CLIENTS = 20;
/** Generous: the soak's own allocations are a few megabytes; a leak per stream would be far more. */
const RSS_GROWTH_LIMIT_BYTES = 64 * 1024 * 1024;

const rssBytes = (pid: number): number => {
  const kib = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) * 1024;
};

describeEachDialect("a soak of streams opened and closed", (dialect) => {
  test(`${SOAK_STREAMS} streams, half cut off by the client: nothing leaks, every request is accounted for`, async () => {
    const testDb = await createTestDatabase(dialect);
    const gateway = await spawnServe({ DATABASE_URL: testDb.url, ...providerEnv(fake), MAX_CONCURRENT_REQUESTS: "1000" });
    const books = openBooks(testDb.url);
    try {
      fake.behave({ chunks: 20 }); // long enough that a client can leave in the middle
      const { secret, account } = await fundedKey(books.store, "100");
      let cutOff = 0;
      /** `count` streams from CLIENTS clients at once; every other one is cancelled after its first chunk. */
      const streams = async (count: number) => {
        let next = 0;
        const client = async () => {
          for (let i = next++; i < count; i = next++) {
            const res = await postChat(gateway.url, secret, hello("gpt-4.1-nano", { stream: true }));
            expect(res.status).toBe(200);
            if (i % 2 === 0) {
              await res.text();
              continue;
            }
            const reader = res.body!.getReader();
            await reader.read();
            await reader.cancel();
            cutOff++;
          }
        };
        await Promise.all(Array.from({ length: CLIENTS }, client));
      };

      await streams(WARM_UP_STREAMS);
      const rssBefore = rssBytes(gateway.proc.pid);
      await streams(SOAK_STREAMS);
      const total = WARM_UP_STREAMS + SOAK_STREAMS;

      await waitFor(async () => (await usageOutcomes(books.db, account.id)).length === total, "a usage log for every request", 10_000);
      await waitFor(() => fake.openStreams() === 0, "every upstream stream to be closed", 10_000);
      const audit = await expectBooksClosed(books.store, account.id);
      const logs = await usageOutcomes(books.db, account.id);
      const succeeded = logs.filter((log) => log.status === "success").length;
      // Each success charged exactly once, each cut-off stream released (or, if it had finished first, charged).
      expect(audit.usageCost).toBe(nanos(BigInt(succeeded) * DEFAULT_COST));
      expect(succeeded).toBeGreaterThanOrEqual(total - cutOff);
      expect(logs.filter((log) => log.status === "error").every((log) => log.error === "client disconnected before the stream finished")).toBe(true);

      const growth = rssBytes(gateway.proc.pid) - rssBefore;
      expect(growth).toBeLessThan(RSS_GROWTH_LIMIT_BYTES);
    } finally {
      await gateway.stop();
      await books.close();
      await testDb.drop();
    }
  });
});
