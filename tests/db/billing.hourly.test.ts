import { expect, test } from "bun:test";
import { generateKeySecret, hashKey, keyPrefix } from "../../src/core/keys/secret.ts";
import { nanos, parseUsd, type Nanos } from "../../src/core/money.ts";
import type { NewReservation } from "../../src/core/store.ts";
import { fundedKey, type FundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
const POLICY = { maxConcurrentRequests: 50, dashboardUrl: "http://gateway.test/dashboard" };

// Hourly limits are hard caps: settled spend in the hour, plus the open reservations the limit
// counts, plus this request, must stay within it (DESIGN.md, "hourly windows").
describeEachDialect("hourly limits in the store count open reservations", (dialect) => {
  const opened = useStore(dialect);
  const store = () => opened().store;

  const reserve = (holder: FundedKey, amount: string, extra: Partial<NewReservation> = {}) =>
    store().reserve({
      account: holder.account, key: holder.key, model: "m", requestedModel: "m",
      amount: usd(amount), policy: POLICY, leaseMs: 60_000, now: Date.now(), ...extra,
    });
  const admitted = async (holder: FundedKey, amount: string) => {
    const outcome = await reserve(holder, amount);
    if (!outcome.ok) throw outcome.error;
    return outcome.reservationId;
  };
  const refusal = async (holder: FundedKey, amount: string) => {
    const outcome = await reserve(holder, amount);
    return outcome.ok ? null : outcome.error;
  };
  const release = (reservationId: string) => store().release({ reservationId, reason: "test", latencyMs: 1, now: Date.now() });

  test("a key's hourly USD limit refuses a request that its open reservations would take past it, and admits it once they end", async () => {
    const holder = await fundedKey(store(), "10", { usdPerHour: usd("0.05") });
    const first = await admitted(holder, "0.03");
    expect(await refusal(holder, "0.03")).toMatchObject({
      kind: "rate_limit_error",
      message:
        "API key hourly spend limit exceeded: the key's limit is $0.050000 per hour: the last hour spent $0.000000 and requests in flight reserve $0.030000, and this request reserves up to $0.030000",
      shouldRetry: false,
    });
    await admitted(holder, "0.02");
    await release(first);
    await admitted(holder, "0.03");
    expect(await refusal(holder, "0.000000001")).not.toBeNull();
  });

  test("the account's hourly safety limit counts the open reservations of all its keys, then their settled spend", async () => {
    const holder = await fundedKey(store(), "10");
    await store().updateAccount(holder.account.id, { spendLimit: usd("0.05") });
    const secret = generateKeySecret();
    const other: FundedKey = {
      ...holder,
      secret,
      key: await store().createKey({
        accountId: holder.account.id, name: "other", prefix: keyPrefix(secret), hash: hashKey(secret), origin: "cli",
        expiresAt: null, creditLimit: null, usdPerHour: null, requestsPerHour: null, now: Date.now(),
      }),
    };
    const first = await admitted(holder, "0.03");
    expect((await refusal(other, "0.03"))?.message).toStartWith("Hourly spend safety limit exceeded");
    await store().settle({
      reservationId: first, accountId: holder.account.id, keyId: holder.key.id, model: "m", requestedModel: "m",
      promptTokens: 1, completionTokens: 1, cost: usd("0.01"), latencyMs: 1, now: Date.now(),
    });
    await admitted(other, "0.03");
    expect((await refusal(holder, "0.02"))?.message).toContain("the last hour spent $0.010000 and requests in flight reserve $0.030000");
  });

  test.each([
    ["a key's hourly USD limit", { usdPerHour: usd("0.05") }, false],
    ["the account's hourly safety limit", {}, true],
  ] as const)("%s holds against requests asked for all at once", async (_title, limits, accountLimit) => {
    const holder = await fundedKey(store(), "10", limits);
    if (accountLimit) await store().updateAccount(holder.account.id, { spendLimit: usd("0.05") });
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => reserve(holder, "0.02")));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(2);
    expect((await store().auditAccount(holder.account.id))?.reserved).toBe(usd("0.04"));
  });

  test("a refusal over an amount names the largest max_tokens that fits when the request's cost per ceiling is known", async () => {
    const holder = await fundedKey(store(), "10", { usdPerHour: usd("0.05") });
    await admitted(holder, "0.03");
    // $0.001 of input plus $0.0001 per output token: $0.02 of room is 190 tokens.
    const costOf = (maxTokens: number) => nanos(1_000_000n + BigInt(maxTokens) * 100_000n);
    const outcome = await reserve(holder, "0.041", { costOf });
    expect(outcome.ok ? null : outcome.error.message).toEndWith("this request reserves up to $0.041000. The largest max_tokens that fits is 190.");
  });
});
