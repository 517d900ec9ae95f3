// The settlement SQL holds core's rules: over random accounts and runs of charges, settling one
// by one and (Postgres) in one batched statement leave the same balances, ledger, usage rows,
// key counters, windows and alert outbox, and the low-balance alert follows `alertTransition`.
import { expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { alertTransition } from "../../src/core/alerts/low-balance.ts";
import { nanos, type Nanos } from "../../src/core/money.ts";
import type { Settlement } from "../../src/core/store.ts";
import { big, exec, first, int, rows } from "../../src/db/sql.ts";
import { settle } from "../../src/db/store/billing/settle.ts";
import { settleMany } from "../../src/db/store/billing/settle-batch.ts";
import { plantSettlementWorld, settlementWorld, unit, type SettlementWorld } from "../support/billing-world.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";

const RUNS = 40;
// Each run plants two accounts and settles up to twelve charges: a few seconds on Postgres, more on a loaded machine.
setDefaultTimeout(30_000);

/** What core's rules make of the charges: the balance after each, the alerts queued, the final arming. */
function expectedOf(world: SettlementWorld) {
  let balance = unit(world.balance);
  let armed = world.armed;
  const threshold = world.threshold === null ? null : unit(world.threshold);
  const balances: Nanos[] = [];
  const alerts: { balance: bigint; threshold: bigint }[] = [];
  for (const charge of world.charges) {
    const after = nanos(balance - unit(charge.cost));
    const transition = alertTransition({ before: balance, after, threshold, armed });
    if (transition === "alert" && threshold !== null) alerts.push({ balance: after, threshold });
    if (transition) armed = transition === "rearm";
    balance = after;
    balances.push(after);
  }
  return { balances, alerts, armed };
}

describeEachDialect("settlement: the store's SQL and core's rules agree", (dialect) => {
  const opened = useStore(dialect);
  const db = () => opened().db;

  async function planted(world: SettlementWorld, now: number) {
    const { holder, keys, ids } = await plantSettlementWorld(db(), opened().store, world, now);
    // With a webhook endpoint, each low-balance alert queues its balance.low event beside it.
    await db().run(exec("INSERT INTO webhook_endpoints (account_id, url, secret, created_at) VALUES (?, 'https://8.8.8.8/', 'whsec_x', ?)", holder.account.id, now));
    const items: Settlement[] = world.charges.map((c, i) => ({
      reservationId: ids[i] as string, accountId: holder.account.id, keyId: keys[c.secondKey ? 1 : 0] as string,
      model: "m", requestedModel: "m", promptTokens: i, completionTokens: 2 * i, cost: unit(c.cost), latencyMs: i, now,
    }));
    return { accountId: holder.account.id, keys, items };
  }

  /** Everything a settlement writes, with the IDs that differ between two plantings left out. */
  async function books(accountId: string, keys: string[]) {
    const account = await db().run(first("SELECT balance_nanos, reserved_nanos, inflight, alert_armed FROM accounts WHERE id = ?", accountId));
    const ledger = await db().run(rows("SELECT amount_nanos FROM ledger_entries WHERE account_id = ? AND kind = 'charge' ORDER BY amount_nanos", accountId));
    const logs = await db().run(rows(
      `SELECT key_id, prompt_tokens, completion_tokens, cost_nanos, latency_ms, status FROM usage_logs WHERE account_id = ?
       ORDER BY prompt_tokens`,
      accountId,
    ));
    const alerts = await db().run(rows("SELECT balance_nanos, threshold_nanos FROM alert_outbox WHERE account_id = ? AND kind = 'low_balance'", accountId));
    const events = await db().run(rows(
      "SELECT subject, balance_nanos, threshold_nanos, body FROM alert_outbox WHERE account_id = ? AND kind = 'webhook' ORDER BY balance_nanos",
      accountId,
    ));
    const perKey = await Promise.all(keys.map(async (id) => {
      const key = await db().run(first("SELECT total_spend_nanos, total_requests FROM api_keys WHERE id = ?", id));
      const window = await db().run(first("SELECT COALESCE(SUM(spend_nanos), 0) AS spend, COALESCE(SUM(requests), 0) AS requests FROM usage_windows WHERE scope = ?", `k:${id}`));
      return [big(key?.total_spend_nanos), int(key?.total_requests), big(window?.spend), int(window?.requests)];
    }));
    const accountWindow = await db().run(first("SELECT COALESCE(SUM(spend_nanos), 0) AS spend FROM usage_windows WHERE scope = ?", `a:${accountId}`));
    return {
      account: [big(account?.balance_nanos), big(account?.reserved_nanos), int(account?.inflight), int(account?.alert_armed) === 1],
      ledger: ledger.map((r) => big(r.amount_nanos)),
      logs: logs.map((r) => [keys.indexOf(r.key_id as string), int(r.prompt_tokens), int(r.completion_tokens), big(r.cost_nanos), int(r.latency_ms), r.status]),
      alerts: alerts.map((r) => ({ balance: big(r.balance_nanos), threshold: big(r.threshold_nanos) })),
      events: events.map((r) => [r.subject, big(r.balance_nanos), big(r.threshold_nanos), r.body]),
      perKey,
      accountWindow: big(accountWindow?.spend),
    };
  }

  async function oneByOne(world: SettlementWorld, now: number) {
    const { accountId, keys, items } = await planted(world, now);
    const balances: Nanos[] = [];
    for (const item of items) balances.push((await db().transaction(settle(item))).balance);
    return { balances, books: await books(accountId, keys) };
  }

  test("charges settled one by one follow core's balance and low-balance alert rules", async () => {
    const now = Date.now();
    await fc.assert(
      fc.asyncProperty(settlementWorld, async (world) => {
        const expected = expectedOf(world);
        const { balances, books: after } = await oneByOne(world, now);
        expect(balances).toEqual(expected.balances);
        expect(after.alerts).toEqual(expected.alerts);
        expect(after.events).toEqual(
          [...expected.alerts].sort((a, b) => Number(a.balance - b.balance)).map((a) => ["balance.low", a.balance, a.threshold, null]),
        );
        expect(after.account[3]).toBe(expected.armed);
        expect(after.account.slice(1, 3)).toEqual([0n, 0]);
      }),
      { numRuns: RUNS },
    );
  });

  if (dialect !== "postgres") return;

  test("a batch of charges in one statement leaves everything as settling them one by one does", async () => {
    const now = Date.now();
    await fc.assert(
      fc.asyncProperty(settlementWorld, async (world) => {
        const alone = await oneByOne(world, now);
        const { accountId, keys, items } = await planted(world, now);
        const batched = await db().run(settleMany(items));
        expect(batched.map((s) => s?.balance)).toEqual(alone.balances);
        expect(await books(accountId, keys)).toEqual(alone.books);
      }),
      { numRuns: RUNS },
    );
  });

  // A batch of one is the statement's other form, which names its rows by scalar parameters.
  test("charges settled alone by the statement leave everything as settle does, and once only", async () => {
    const now = Date.now();
    await fc.assert(
      fc.asyncProperty(settlementWorld, async (world) => {
        const alone = await oneByOne(world, now);
        const { accountId, keys, items } = await planted(world, now);
        const balances = [];
        for (const item of items) balances.push((await db().run(settleMany([item])))[0]?.balance);
        expect(balances).toEqual(alone.balances);
        for (const item of items) expect(await db().run(settleMany([item]))).toEqual([null]);
        expect(await books(accountId, keys)).toEqual(alone.books);
      }),
      { numRuns: RUNS },
    );
  });
});
