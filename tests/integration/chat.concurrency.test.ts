import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { startGateway, type TestGateway } from "../support/server.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());
const nano = FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!;

// A tiny deterministic generator, so that a failing round can be replayed from its seed.
function random(seed: number) {
  let state = seed >>> 0;
  return (max: number) => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state % max;
  };
}

describeEachDialect("chat: concurrent requests on a small balance, across two instances", (dialect) => {
  let first: TestGateway;
  let second: TestGateway;
  beforeAll(async () => {
    // The concurrency cap is lifted so that only the balance stands between requests.
    const env = { ...providerEnv(fake), MAX_CONCURRENT_REQUESTS: "1000" };
    first = await startGateway(dialect, env);
    second = await startGateway(dialect, env, first.testDb);
  });
  afterAll(async () => {
    await second.stop();
    await first.stop();
  });
  afterEach(() => fake.behave({}));

  test.each([1, 2, 3, 4, 5])("round with seed %i: never overspent, balance = ledger, nothing left reserved", async (seed) => {
    const next = random(seed);
    const maxTokens = 50 + next(200);
    const prompt = 20 + next(30);
    const completion = Math.min(maxTokens, 10 + next(maxTokens));
    fake.behave({ usage: { prompt_tokens: prompt, completion_tokens: completion }, delayMs: next(5) });
    const cost = requestCost(prompt, completion, nano);
    const body = hello("gpt-4.1-nano", { max_tokens: maxTokens });
    const ceiling = requestCost(Buffer.byteLength(JSON.stringify(body)) + 7, maxTokens, nano);
    // Room for between 2 and 8 ceilings: most of the 40 requests must be refused.
    const startNanos = ceiling * BigInt(2 + next(7)) + BigInt(next(Number(ceiling)));
    const { secret, account } = await fundedKey(first.store, "0");
    await first.store.addCredit({ accountId: account.id, amount: nanos(startNanos), kind: "grant", now: Date.now() });

    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => postChat((i % 2 ? second : first).url, secret, body)),
    );
    const statuses = results.map((r) => r.status);
    await Promise.all(results.map((r) => r.arrayBuffer()));
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);

    const succeeded = BigInt(statuses.filter((s) => s === 200).length);
    const after = (await first.store.getAccount(account.id))!;
    expect(after.balance).toBe(await first.store.ledgerSum(account.id));
    expect([after.reserved, after.inflight]).toEqual([nanos(0), 0] as never);
    // Exactly the successes were charged, each its exact cost, and never past the credits.
    expect(after.balance).toBe(nanos(startNanos - succeeded * cost));
    expect(after.balance).toBeGreaterThanOrEqual(0n);
    // A request is refused only when the credits not yet held cannot cover its ceiling, so at
    // least as many succeed as ceilings fit in the starting balance.
    expect(succeeded).toBeGreaterThanOrEqual(startNanos / ceiling);
  });
});
