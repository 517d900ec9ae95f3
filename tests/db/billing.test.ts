import { beforeAll, describe, expect, test } from "bun:test";
import { generateKeySecret, hashKey, keyPrefix } from "../../src/core/keys/secret.ts";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import type { NewKey } from "../../src/core/store.ts";
import type { Store } from "../../src/core/ports.ts";
import type { Database } from "../../src/db/database.ts";
import { first, int, rows } from "../../src/db/sql.ts";
import { fundedKey, type FundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
const POLICY = { maxConcurrentRequests: 10, dashboardUrl: "http://gateway.test/dashboard" };

// Reservation and settlement as the chat path uses them. On Postgres each is one statement
// (src/db/store/billing/); these hold both dialects to the same outcomes.
describeEachDialect("billing in the store", (dialect) => {
  const opened = useStore(dialect);
  let db: Database;
  let store: Store;
  beforeAll(() => {
    ({ db, store } = opened());
  });

  const funded = (balance: string, limits: Partial<Pick<NewKey, "creditLimit" | "usdPerHour" | "requestsPerHour">> = {}) =>
    fundedKey(store, balance, limits);

  async function reserve(holder: FundedKey, amount = "0.01", now = Date.now()) {
    return store.reserve({
      account: holder.account, key: holder.key, model: "gpt-4.1-nano", requestedModel: "gpt-4.1-nano",
      amount: usd(amount), policy: POLICY, leaseMs: 60_000, now,
    });
  }
  async function reserved(holder: FundedKey, amount = "0.01"): Promise<string> {
    const outcome = await reserve(holder, amount);
    if (!outcome.ok) throw outcome.error;
    return outcome.reservationId;
  }
  const settle = (holder: FundedKey, reservationId: string, cost: string, now = Date.now()) =>
    store.settle({
      reservationId, accountId: holder.account.id, keyId: holder.key.id, model: "gpt-4.1-nano", requestedModel: "gpt-4.1-nano",
      promptTokens: 10, completionTokens: 20, cost: usd(cost), latencyMs: 5, now,
    });
  const keyTotals = async (holder: FundedKey) => {
    const row = await db.run(first("SELECT total_requests, total_spend_nanos, last_used_at FROM api_keys WHERE id = ?", holder.key.id));
    return { requests: int(row?.total_requests), spend: BigInt(row?.total_spend_nanos as bigint), used: row?.last_used_at !== null };
  };
  const audit = async (holder: FundedKey) => (await store.auditAccount(holder.account.id))!;

  test("a settlement charges the cost, frees the reservation and returns the balance", async () => {
    const holder = await funded("1");
    const id = await reserved(holder, "0.5");
    expect((await audit(holder)).reserved).toBe(usd("0.5"));
    expect(await settle(holder, id, "0.000123456")).toEqual({ balance: usd("0.999876544") });
    const after = await audit(holder);
    expect(after).toMatchObject({ balance: usd("0.999876544"), ledgerSum: usd("0.999876544"), reserved: 0n, openReservations: 0 });
    expect(after.usageCost).toBe(usd("0.000123456"));
    expect((await store.getAccount(holder.account.id))?.inflight).toBe(0);
  });

  test("the usage log keeps a settlement's cached tokens and what caching saved, settled alone or together", async () => {
    const holder = await funded("1");
    const ids = [await reserved(holder), await reserved(holder), await reserved(holder)];
    const charge = (reservationId: string, cachedTokens: number, saved: string) => ({
      reservationId, accountId: holder.account.id, keyId: holder.key.id, model: "gpt-4.1-nano", requestedModel: "gpt-4.1-nano",
      promptTokens: 100, completionTokens: 20, cost: usd("0.00001"), latencyMs: 5, now: Date.now(), cachedTokens, saved: usd(saved),
    });
    await store.settle(charge(ids[0]!, 80, "0.000006"));
    // Settled at once, Postgres writes them in one batch statement.
    await Promise.all([store.settle(charge(ids[1]!, 40, "0.000003")), store.settle(charge(ids[2]!, 0, "0"))]);
    const logged = await store.usageLogPage(holder.account.id, null, 10);
    expect(logged.map((row) => [row.cachedTokens, row.saved]).toSorted((a, b) => Number(b[0]) - Number(a[0]))).toEqual([
      [80, usd("0.000006")], [40, usd("0.000003")], [0, usd("0")],
    ]);
  });

  test("a reservation is settled once: a second settlement is refused and changes nothing", async () => {
    const holder = await funded("1");
    const id = await reserved(holder);
    await settle(holder, id, "0.001");
    const before = await audit(holder);
    await expect(settle(holder, id, "0.001")).rejects.toThrow("already charged");
    expect(await audit(holder)).toEqual(before);
    expect(await keyTotals(holder)).toMatchObject({ requests: 1, spend: usd("0.001") });
  });

  test("a settlement whose charge is already in the ledger changes nothing, its reservation included", async () => {
    // Not a state the gateway makes (a charge and its reservation's removal are one write), but
    // the settlement must not half-apply on it: on Postgres a settlement alone is one statement.
    const holder = await funded("1");
    const id = await reserved(holder, "0.5");
    await db.run(rows(
      "INSERT INTO ledger_entries (id, account_id, kind, amount_nanos, idempotency_key, note, created_at) VALUES (?, ?, 'charge', ?, ?, NULL, ?)",
      crypto.randomUUID(), holder.account.id, -usd("0.001"), `charge:${id}`, Date.now(),
    ));
    const before = await audit(holder);
    await expect(settle(holder, id, "0.001")).rejects.toThrow("already charged");
    expect(await audit(holder)).toEqual(before);
    expect(before).toMatchObject({ reserved: usd("0.5"), openReservations: 1 });
  });

  test("a charge that arrives after the sweeper released its reservation is still taken, and the request counted once", async () => {
    const holder = await funded("1");
    const id = await reserved(holder);
    await store.release({ reservationId: id, reason: "lease expired", latencyMs: 1, now: Date.now() });
    expect(await keyTotals(holder)).toMatchObject({ requests: 1, spend: 0n });
    await settle(holder, id, "0.002");
    expect(await audit(holder)).toMatchObject({ balance: usd("0.998"), ledgerSum: usd("0.998"), reserved: 0n, openReservations: 0 });
    expect((await store.getAccount(holder.account.id))?.inflight).toBe(0);
    expect(await keyTotals(holder)).toMatchObject({ requests: 1, spend: usd("0.002") });
  });

  test("the key's counters move when the request ends: settled with its cost, released with none", async () => {
    const holder = await funded("1");
    const first = await reserved(holder);
    const second = await reserved(holder);
    expect(await keyTotals(holder)).toEqual({ requests: 0, spend: 0n, used: false });
    await settle(holder, first, "0.003");
    await store.release({ reservationId: second, reason: "provider failed", latencyMs: 1, now: Date.now() });
    expect(await keyTotals(holder)).toEqual({ requests: 2, spend: usd("0.003"), used: true });
    const logs = await db.run(rows("SELECT status, cost_nanos, error FROM usage_logs WHERE key_id = ? ORDER BY status DESC", holder.key.id));
    expect(logs.map((l) => [l.status, BigInt(l.cost_nanos as bigint), l.error])).toEqual([
      ["success", usd("0.003"), null],
      ["error", 0n, "provider failed"],
    ]);
  });

  test("the hourly request limit counts requests still in flight, then the ended ones", async () => {
    const holder = await funded("1", { requestsPerHour: 2 });
    const ids = [await reserved(holder), await reserved(holder)];
    const third = await reserve(holder);
    expect(third.ok).toBe(false);
    if (!third.ok) expect(third.error.message).toBe("API key hourly request limit reached: 2 requests in the last hour, limit 2");
    for (const id of ids) await settle(holder, id, "0.001");
    expect((await reserve(holder)).ok).toBe(false);
  });

  test("the key's credit limit counts open reservations and settled spend", async () => {
    const holder = await funded("10", { creditLimit: usd("0.05") });
    const id = await reserved(holder, "0.03");
    expect((await reserve(holder, "0.03")).ok).toBe(false);
    await settle(holder, id, "0.01");
    expect((await reserve(holder, "0.03")).ok).toBe(true);
    expect((await reserve(holder, "0.02")).ok).toBe(false);
  });

  test("a balance that cannot cover the reservation is refused with the amounts, and nothing is held", async () => {
    const holder = await funded("0.01");
    const outcome = await reserve(holder, "0.02");
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.message).toBe(
        "Insufficient credits: available balance $0.010000, estimated cost $0.020000. Top up at http://gateway.test/dashboard/topup",
      );
    }
    expect(await audit(holder)).toMatchObject({ reserved: 0n, openReservations: 0 });
  });

  // Concurrent requests share a statement on Postgres (batched admissions and settlements); each
  // must come out as if it had been alone.
  describe("requests at once", () => {
    const windowTotals = async (scope: string) => {
      const row = await db.run(
        first("SELECT COALESCE(SUM(spend_nanos), 0) AS spend, COALESCE(SUM(requests), 0) AS requests FROM usage_windows WHERE scope = ?", scope),
      );
      return { spend: BigInt(row?.spend as bigint | string), requests: int(row?.requests) };
    };

    test("settlements across accounts and keys, a repeated one and a late one among them, leave every total exact", async () => {
      const [a, b] = [await funded("1"), await funded("2")];
      const secret = generateKeySecret();
      const secondKey = await store.createKey({
        accountId: a.account.id, name: "second", prefix: keyPrefix(secret), hash: hashKey(secret), origin: "cli",
        expiresAt: null, creditLimit: null, usdPerHour: null, requestsPerHour: null, now: Date.now(),
      });
      const a2: FundedKey = { ...a, secret, key: secondKey };
      const charges: [FundedKey, string][] = [
        [a, "0.011"], [a2, "0.022"], [b, "0.033"], [a, "0.044"], [b, "0.055"], [a2, "0.066"], [b, "0.077"],
      ];
      const ids = await Promise.all(charges.map(([holder]) => reserved(holder)));
      const late = await reserved(b);
      await store.release({ reservationId: late, reason: "lease expired", latencyMs: 1, now: Date.now() });

      // All asked for at once: on Postgres the first few run alone and the rest share one
      // statement, the repeated settlement (of the last charge) and the late one among them.
      const outcomes = await Promise.allSettled([
        ...charges.map(([holder, cost], i) => settle(holder, ids[i] as string, cost)),
        settle(b, ids[6] as string, "0.077"),
        settle(b, late, "0.005"),
      ]);
      const refused = outcomes.filter((o) => o.status === "rejected");
      expect(refused).toHaveLength(1);
      expect(String((refused[0] as PromiseRejectedResult).reason)).toContain("already charged");

      expect(await audit(a)).toMatchObject({ balance: usd("0.857"), ledgerSum: usd("0.857"), usageCost: usd("0.143"), reserved: 0n, openReservations: 0 });
      expect(await audit(b)).toMatchObject({ balance: usd("1.830"), ledgerSum: usd("1.830"), usageCost: usd("0.170"), reserved: 0n, openReservations: 0 });
      for (const holder of [a, b]) expect((await store.getAccount(holder.account.id))?.inflight).toBe(0);
      expect(await keyTotals(a)).toMatchObject({ requests: 2, spend: usd("0.055") });
      expect(await keyTotals(a2)).toMatchObject({ requests: 2, spend: usd("0.088") });
      expect(await keyTotals(b)).toMatchObject({ requests: 4, spend: usd("0.170") });
      expect(await windowTotals(`a:${a.account.id}`)).toEqual({ spend: usd("0.143"), requests: 0 });
      expect(await windowTotals(`k:${a2.key.id}`)).toEqual({ spend: usd("0.088"), requests: 2 });
      expect(await windowTotals(`k:${b.key.id}`)).toEqual({ spend: usd("0.170"), requests: 4 });
      const logs = await db.run(rows("SELECT COUNT(*) AS n FROM usage_logs WHERE account_id IN (?, ?) AND status = 'success'", a.account.id, b.account.id));
      expect(int(logs[0]?.n)).toBe(8);
    });

    test("a settlement that cannot be written fails alone: the others asked for with it are charged", async () => {
      const holder = await funded("1");
      const ids = await Promise.all(Array.from({ length: 8 }, () => reserved(holder)));
      const outcomes = await Promise.allSettled(
        ids.map((id, i) =>
          i === 6
            ? store.settle({
                reservationId: id, accountId: holder.account.id, keyId: holder.key.id, model: "gpt-4.1-nano",
                requestedModel: "gpt-4.1-nano", promptTokens: 1, completionTokens: 1, cost: (2n ** 63n) as Nanos, latencyMs: 1, now: Date.now(),
              })
            : settle(holder, id, "0.001"),
        ),
      );
      expect(outcomes.map((o) => o.status)).toEqual([...Array(6).fill("fulfilled"), "rejected", "fulfilled"]);
      expect(await audit(holder)).toMatchObject({
        balance: usd("0.993"), ledgerSum: usd("0.993"), usageCost: usd("0.007"), reserved: usd("0.01"), openReservations: 1,
      });
      expect(await keyTotals(holder)).toMatchObject({ requests: 7, spend: usd("0.007") });
    });

    test("admissions at once stop at the account's concurrency limit and at its balance, with the spec's refusals", async () => {
      const busy = await funded("10");
      const many = await Promise.all(Array.from({ length: 14 }, () => reserve(busy, "0.01")));
      expect(many.filter((o) => o.ok)).toHaveLength(POLICY.maxConcurrentRequests);
      for (const o of many.filter((o) => !o.ok)) if (!o.ok) expect(o.error.kind).toBe("rate_limit_error");
      expect(await audit(busy)).toMatchObject({ reserved: usd("0.10"), openReservations: 10 });

      const poor = await funded("0.035");
      const few = await Promise.all(Array.from({ length: 5 }, () => reserve(poor, "0.01")));
      expect(few.filter((o) => o.ok)).toHaveLength(3);
      for (const o of few.filter((o) => !o.ok)) if (!o.ok) expect(o.error.message).toStartWith("Insufficient credits: available balance $0.005000");
      expect(await audit(poor)).toMatchObject({ reserved: usd("0.03"), openReservations: 3 });
      expect((await store.getAccount(poor.account.id))?.inflight).toBe(3);
    });
  });

  describe("the low-balance alert on charges", () => {
    const outbox = (holder: FundedKey) =>
      db.run(rows("SELECT balance_nanos, threshold_nanos FROM alert_outbox WHERE account_id = ?", holder.account.id));
    const armed = async (holder: FundedKey) =>
      int((await db.run(first("SELECT alert_armed FROM accounts WHERE id = ?", holder.account.id)))?.alert_armed) === 1;

    test("charges settled at once that cross the threshold queue one alert, with the balance after the crossing one", async () => {
      const holder = await funded("1.05");
      await store.updateAccount(holder.account.id, { alertThreshold: usd("1") });
      const ids = await Promise.all(Array.from({ length: 8 }, () => reserved(holder)));
      await Promise.all(ids.map((id) => settle(holder, id, "0.01")));
      const alerts = await outbox(holder);
      expect(alerts).toHaveLength(1);
      expect(BigInt(alerts[0]?.threshold_nanos as bigint)).toBe(usd("1"));
      expect(BigInt(alerts[0]?.balance_nanos as bigint)).toBe(usd("0.99"));
      expect(await armed(holder)).toBe(false);
      expect((await audit(holder)).balance).toBe(usd("0.97"));
    });

    test("a charge that stays above the threshold, starts below it, or meets alerts off queues nothing", async () => {
      const above = await funded("5");
      await store.updateAccount(above.account.id, { alertThreshold: usd("1") });
      await settle(above, await reserved(above), "0.5");
      const below = await funded("0.5");
      await store.updateAccount(below.account.id, { alertThreshold: usd("1") });
      await settle(below, await reserved(below), "0.1");
      const off = await funded("5");
      await settle(off, await reserved(off), "4.5");
      expect([...(await outbox(above)), ...(await outbox(below)), ...(await outbox(off))]).toEqual([]);
      for (const holder of [above, below, off]) expect(await armed(holder)).toBe(true);
    });
  });
});
