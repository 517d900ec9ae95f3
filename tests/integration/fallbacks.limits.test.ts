// Fallbacks under load: 20 requests at once across two instances on one database, each failing
// on a dear first model (its provider answers 503) and served by a cheap second. The one
// reservation is sized for the dearest candidate, so no fallback lets the account overshoot its
// balance, the key its credit limit or hourly spend, or a member their daily cap; each success is charged once, at the
// serving model's prices.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { nanos, requestCost, type Nanos } from "../../src/core/money.ts";
import type { NewKey } from "../../src/core/store.ts";
import { fundedKey } from "../support/accounts.ts";
import { postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { CHEAP, DEAR, useFallbackProviders } from "../support/fallback-providers.ts";
import { cappedMember } from "../support/member-cap.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const { failing, answering, env: providers } = useFallbackProviders();
const MAX_TOKENS = 400;
const body = { models: [DEAR.id, CHEAP.id], messages: [{ role: "user", content: "hello" }], max_tokens: MAX_TOKENS };
const BODY_BYTES = Buffer.byteLength(JSON.stringify(body));
// What one request holds: its prompt bound (one token per byte, plus the template) and its ceiling, at the dear model's prices.
const HELD = requestCost(BODY_BYTES + 4 + 3, MAX_TOKENS, DEAR);
// The fake's usage, at the cheap model's prices: what one success costs.
const CHARGED = requestCost(11, 7, CHEAP);
const PARALLEL = 20;

describeEachDialect("fallbacks: limits hold for the request as a whole, across two instances", (dialect) => {
  let first: TestGateway;
  let second: TestGateway;
  beforeAll(async () => {
    // The concurrency cap is lifted so that only the limit under test stands between requests.
    const env = { ...providers, MAX_CONCURRENT_REQUESTS: "1000" };
    first = await startGateway(dialect, env);
    second = await startGateway(dialect, env, first.testDb);
    failing.behave({ status: 503 });
  });
  afterAll(async () => {
    await second.stop();
    await first.stop();
  });

  /**
   * 20 requests at once, alternating instances; the account and key afterwards. The serving
   * provider holds its answers until every request is held there or refused, so that exactly
   * the reservations that fit together are served.
   */
  async function burst(usd: string, limits: Partial<Pick<NewKey, "creditLimit" | "usdPerHour">> = {}) {
    const { secret, account } = await fundedKey(first.store, usd, limits);
    return burstWith(secret, account.id);
  }

  async function burstWith(secret: string, accountId: string) {
    let release = () => {};
    answering.behave({ holdUntil: new Promise<void>((resolve) => { release = resolve; }) });
    const before = answering.received.length;
    let refused = 0;
    const pending = Array.from({ length: PARALLEL }, (_, i) => postChat((i % 2 ? second : first).url, secret, body).then((r) => {
      if (r.status !== 200) refused++;
      return r;
    }));
    await waitFor(() => answering.received.length - before + refused === PARALLEL, "every request held by the provider or refused", 20_000, 10);
    release();
    const results = await Promise.all(pending);
    const statuses = results.map((r) => r.status);
    const models = await Promise.all(results.map(async (r) => (r.status === 200 ? ((await r.json()) as { model: string }).model : (await r.arrayBuffer(), null))));
    const after = (await first.store.getAccount(accountId))!;
    const spent = (await first.store.listKeys(accountId)).reduce((sum, k) => sum + k.totalSpend, 0n);
    const successes = statuses.filter((s) => s === 200).length;
    // Whatever refused the rest, the books add up: each success charged once, at the cheap model's prices.
    expect(after.balance).toBe(await first.store.ledgerSum(accountId));
    expect([after.reserved, after.inflight]).toEqual([nanos(0), 0] as never);
    expect(spent).toBe(nanos(BigInt(successes) * CHARGED));
    expect(models.filter((m) => m !== null).every((m) => m === CHEAP.id)).toBe(true);
    return { statuses, successes, balance: after.balance as Nanos, spent: nanos(spent) };
  }

  test("a balance with room for a few dear reservations: never overspent, and as many served as fit", async () => {
    const usd = (Number(HELD * 3n + HELD / 2n) / 1e9).toFixed(9);
    const { statuses, successes, balance } = await burst(usd);
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    expect(balance).toBeGreaterThanOrEqual(0n);
    expect(successes).toBe(3);
  });

  test("a key's credit limit: its spend never passes it", async () => {
    const limit = nanos(HELD * 2n + HELD / 3n);
    const { statuses, spent, successes } = await burst("10", { creditLimit: limit });
    expect(statuses.every((s) => s === 200 || s === 402 || s === 429)).toBe(true);
    expect(spent).toBeLessThanOrEqual(limit);
    expect(successes).toBe(2);
  });

  test("a key's hourly spend limit: its spend never passes it", async () => {
    const limit = nanos(HELD * 4n + HELD / 5n);
    const { statuses, spent, successes } = await burst("10", { usdPerHour: limit });
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(spent).toBeLessThanOrEqual(limit);
    expect(successes).toBe(4);
  });

  test("an organization member's daily cap: the member's spend never passes it", async () => {
    const cap = nanos(HELD * 3n + HELD / 4n);
    const { orgId, secret } = await cappedMember(first.store, cap);
    const { statuses, spent, successes } = await burstWith(secret, orgId);
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    expect(spent).toBeLessThanOrEqual(cap);
    expect(successes).toBe(3);
  });
});
