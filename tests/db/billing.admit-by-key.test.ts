// The admission that finds the key (`BillingStore.admitByKey`): the lookup and the hold in one
// step (Postgres: one statement, SQLite: one transaction) for a key that nothing but its account
// could refuse, and for any other key the lookup alone, leaving the decision to `reserve`.
import { beforeAll, expect, test } from "bun:test";
import { hashKey } from "../../src/core/keys/secret.ts";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import type { Store } from "../../src/core/ports.ts";
import type { NewKey } from "../../src/core/store.ts";
import { fundedKey, type FundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
const policy = (maxConcurrentRequests = 10) => ({ maxConcurrentRequests, dashboardUrl: "http://gateway.test/dashboard" });
const UNKNOWN = hashKey(`gw-${"Z".repeat(48)}`);

describeEachDialect("admission that finds the key", (dialect) => {
  const opened = useStore(dialect);
  let store: Store;
  beforeAll(() => {
    ({ store } = opened());
  });

  const funded = (balance: string, limits: Partial<Pick<NewKey, "expiresAt" | "creditLimit" | "usdPerHour" | "requestsPerHour">> = {}) =>
    fundedKey(store, balance, limits);
  const admission = (amount: string, maxConcurrentRequests?: number) => ({
    model: "gpt-4.1-nano", requestedModel: "gpt-4.1-nano", amount: usd(amount), policy: policy(maxConcurrentRequests), leaseMs: 60_000, now: Date.now(),
  });
  const admit = (secretOrHash: string, amount = "0.01", maxConcurrentRequests?: number) =>
    store.admitByKey(secretOrHash.startsWith("gw-") ? hashKey(secretOrHash) : secretOrHash, admission(amount, maxConcurrentRequests));
  const held = async (holder: FundedKey) => {
    const audit = (await store.auditAccount(holder.account.id))!;
    return { reserved: audit.reserved as bigint, open: audit.openReservations };
  };
  test("finds the key and its account as findKeyByHash does, and an unknown key as null", async () => {
    const holder = await funded("1");
    const { found } = await admit(holder.secret);
    expect(found).toEqual(await store.findKeyByHash(hashKey(holder.secret)));
    expect(found?.key.id).toBe(holder.key.id);
    expect(await admit(UNKNOWN)).toEqual({ found: null, reservationId: null });
  });

  test("holds the reservation in the same step for a key without limits", async () => {
    const holder = await funded("1");
    const { reservationId } = await admit(holder.secret, "0.25");
    expect(reservationId).toEqual(expect.any(String));
    expect(await held(holder)).toEqual({ reserved: usd("0.25"), open: 1 });
    expect((await store.getAccount(holder.account.id))?.inflight).toBe(1);
    // It is an ordinary reservation: settled as any other.
    const settled = await store.settle({
      reservationId: reservationId as string, accountId: holder.account.id, keyId: holder.key.id, model: "gpt-4.1-nano",
      requestedModel: "gpt-4.1-nano", promptTokens: 1, completionTokens: 1, cost: usd("0.1"), latencyMs: 1, now: Date.now(),
    });
    expect(settled).toEqual({ balance: usd("0.9") });
    expect(await held(holder)).toEqual({ reserved: 0n, open: 0 });
  });

  const refusals: [string, () => Promise<FundedKey>, string?, number?][] = [
    ["a revoked key", async () => {
      const holder = await funded("1");
      await store.revokeKey(holder.account.id, holder.key.id, Date.now());
      return holder;
    }],
    ["an expired key", () => funded("1", { expiresAt: Date.now() - 1 })],
    ["a key of a banned account", async () => {
      const holder = await funded("1");
      await store.updateAccount(holder.account.id, { bannedAt: Date.now() });
      return holder;
    }],
    ["a key of a deleted account", async () => {
      const holder = await funded("1");
      await store.updateAccount(holder.account.id, { deletedAt: Date.now() });
      return holder;
    }],
    ["a key with a credit limit", () => funded("1", { creditLimit: usd("5") })],
    ["a key with a USD-per-hour limit", () => funded("1", { usdPerHour: usd("5") })],
    ["a key with a requests-per-hour limit", () => funded("1", { requestsPerHour: 100 })],
    ["a balance short of the amount", () => funded("0.001")],
  ];
  test.each(refusals)("holds nothing for %s, and finds it for reserve to decide", async (_title, make) => {
    const holder = await make();
    const outcome = await admit(holder.secret);
    expect(outcome).toEqual({ found: await store.findKeyByHash(hashKey(holder.secret)), reservationId: null });
    expect(outcome.found?.key.id).toBe(holder.key.id);
    expect(await held(holder)).toEqual({ reserved: 0n, open: 0 });
  });

  test("an account's spend limit: Postgres leaves it to reserve, SQLite's reserve holds within it in the same transaction", async () => {
    const holder = await funded("1");
    await store.updateAccount(holder.account.id, { spendLimit: usd("0.05") });
    const within = await admit(holder.secret, "0.04");
    expect(within.reservationId).toEqual(dialect === "sqlite" ? expect.any(String) : null);
    const past = await admit(holder.secret, "0.04");
    expect(past).toEqual({ found: await store.findKeyByHash(hashKey(holder.secret)), reservationId: null });
    expect(await held(holder)).toEqual(dialect === "sqlite" ? { reserved: usd("0.04"), open: 1 } : { reserved: 0n, open: 0 });
  });

  test("a key is usable up to its expiry instant and refused after it, as keyRefusal says", async () => {
    const expiresAt = Date.now() + 60_000;
    const holder = await funded("1", { expiresAt });
    const at = (now: number) => store.admitByKey(hashKey(holder.secret), { ...admission("0.01"), now });
    expect((await at(expiresAt + 1)).reservationId).toBeNull();
    expect(await held(holder)).toEqual({ reserved: 0n, open: 0 });
    expect((await at(expiresAt)).reservationId).toEqual(expect.any(String));
    expect(await held(holder)).toEqual({ reserved: usd("0.01"), open: 1 });
  });

  test("holds nothing past the account's concurrency limit", async () => {
    const holder = await funded("1");
    const ids = [(await admit(holder.secret, "0.01", 2)).reservationId, (await admit(holder.secret, "0.01", 2)).reservationId];
    const third = await admit(holder.secret, "0.01", 2);
    expect(third.reservationId).toBeNull();
    expect(third.found?.key.id).toBe(holder.key.id);
    expect(await held(holder)).toEqual({ reserved: usd("0.02"), open: 2 });
    expect(ids.every((id) => typeof id === "string")).toBe(true);
  });

  test("requests asked for at once (on Postgres, batched) each get their own outcome", async () => {
    const good = await Promise.all([funded("1"), funded("1"), funded("1")]);
    const revoked = await funded("1");
    await store.revokeKey(revoked.account.id, revoked.key.id, Date.now());
    // The first four asked run at once, alone (see `batched`), and lock no account row: the
    // good keys' eighteen wait and go together, so none finds its account's row taken by a
    // lone admission (a batch skips such an account, leaving it to `reserve`).
    const asked = [UNKNOWN, UNKNOWN, revoked.secret, revoked.secret, ...good.flatMap((h) => Array.from({ length: 6 }, () => h.secret))];
    const outcomes = await Promise.all(asked.map((secret) => admit(secret, "0.05")));
    expect(outcomes.slice(0, 2)).toEqual([{ found: null, reservationId: null }, { found: null, reservationId: null }]);
    expect(outcomes.slice(2, 4).map((o) => [o.found?.key.id, o.reservationId])).toEqual([[revoked.key.id, null], [revoked.key.id, null]]);
    const ids = outcomes.slice(4).map((o) => o.reservationId);
    expect(new Set(ids).size).toBe(18);
    expect(ids.every((id) => typeof id === "string")).toBe(true);
    expect(outcomes.slice(4).map((o) => o.found?.key.id)).toEqual(good.flatMap((h) => Array(6).fill(h.key.id)));
    for (const holder of good) expect(await held(holder)).toEqual({ reserved: usd("0.3"), open: 6 });
    expect(await held(revoked)).toEqual({ reserved: 0n, open: 0 });
  });
});
