import { nanos, type Nanos } from "../../../core/money.ts";
import { minuteOf } from "../../../core/billing/hour-window.ts";
import type { Settlement } from "../../../core/store.ts";
import type { Database } from "../../database.ts";
import { big, first, rows, type Work } from "../../sql.ts";
import { AlreadyCharged, settle } from "./settle.ts";
import { settleAlone } from "./settle-alone.ts";
import { queueBalanceLow } from "../webhooks.ts";
import { INSERT_USAGE_LOG, usageLogId } from "./usage-log.ts";

/** A settlement's outcome in a batch: the balance after its charge, or null when it was already charged. */
type Settled = { balance: Nanos } | null;

// The statement of `settleMany`, in three parts. Rows are locked in one order by every batch
// and by `release`: reservations, then the charges' idempotency keys, accounts, keys and
// windows, each by id. Each step waits for the one before (an uncorrelated subquery runs to
// completion first, and a join reads its CTE), since Postgres otherwise runs data-modifying
// CTEs in no set order; the alert and the usage logs, new rows only, are written at the end.

/** The reservations taken and the charges entered; `done` holds the settlements charged now. */
const TAKE_AND_CHARGE = `input AS (
       SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
         ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[])
         WITH ORDINALITY AS i(reservation_id, account_id, key_id, cost, ledger_id, log_id, alert_id, model, requested_model,
           prompt_tokens, completion_tokens, latency_ms, now, minute, cached_tokens, saved, ord)),
     held AS MATERIALIZED (SELECT id FROM reservations WHERE id = ANY(?::text[]) ORDER BY id FOR UPDATE),
     taken AS (
       DELETE FROM reservations WHERE id = ANY(?::text[]) AND id IN (SELECT id FROM held) RETURNING id, amount_nanos),
     charged AS (
       INSERT INTO ledger_entries (id, account_id, kind, amount_nanos, idempotency_key, note, created_at)
       SELECT ledger_id, account_id, 'charge', -cost, 'charge:' || reservation_id, NULL, now FROM input
       WHERE (SELECT COUNT(*) FROM taken) >= 0 ORDER BY reservation_id
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING idempotency_key),
     done AS MATERIALIZED (
       SELECT i.*, COALESCE(t.amount_nanos, 0) AS reserved, CASE WHEN t.id IS NULL THEN 0 ELSE 1 END AS requests,
         SUM(i.cost) OVER (PARTITION BY i.account_id ORDER BY i.ord) AS spent_through,
         ROW_NUMBER() OVER (PARTITION BY i.account_id ORDER BY i.ord) AS nth
       FROM input i JOIN charged c ON c.idempotency_key = 'charge:' || i.reservation_id
       LEFT JOIN taken t ON t.id = i.reservation_id)`;

/**
 * The accounts debited, each charge judged on the balance before and after it. This repeats
 * `alertTransition` (src/core/alerts/low-balance.ts) in SQL: the first charge to cross the threshold
 * downward queues the alert when the account was armed, or re-armed by an earlier charge of the
 * batch; the account ends disarmed after a crossing, re-armed when it ends at or above it. A
 * crossing also queues the account's `balance.low` webhook event (`queueBalanceLow`).
 */
const DEBIT_AND_ALERT = `per_account AS (
       SELECT account_id, SUM(cost) AS cost, SUM(reserved) AS reserved, SUM(requests) AS requests FROM done GROUP BY account_id),
     prior AS MATERIALIZED (
       SELECT id, email, alert_threshold_nanos AS threshold, alert_armed = 1 AS armed, balance_nanos AS before
       FROM accounts WHERE id = ANY(?::text[]) AND id IN (SELECT account_id FROM per_account) ORDER BY id FOR UPDATE),
     steps AS (
       SELECT d.reservation_id, d.account_id, d.alert_id, d.now, d.nth, pr.email, pr.threshold, pr.armed,
         pr.before - d.spent_through + d.cost AS before, pr.before - d.spent_through AS after
       FROM done d JOIN prior pr ON pr.id = d.account_id),
     crossing AS (
       SELECT DISTINCT ON (account_id) account_id, alert_id, email, after AS balance, threshold, now FROM steps
       WHERE before >= threshold AND after < threshold AND (armed OR nth > 1) ORDER BY account_id, nth),
     account AS (
       UPDATE accounts a SET balance_nanos = a.balance_nanos - p.cost, reserved_nanos = a.reserved_nanos - p.reserved,
         inflight = a.inflight - p.requests,
         alert_armed = CASE WHEN pr.threshold IS NULL THEN a.alert_armed
           WHEN EXISTS (SELECT 1 FROM crossing c WHERE c.account_id = a.id) THEN 0
           WHEN pr.armed OR pr.before - p.cost >= pr.threshold THEN 1 ELSE 0 END
       FROM per_account p JOIN prior pr ON pr.id = p.account_id WHERE a.id = ANY(?::text[]) AND a.id = p.account_id RETURNING a.id),
     alert AS (
       INSERT INTO alert_outbox (id, account_id, email, balance_nanos, threshold_nanos, created_at, next_attempt_at)
       SELECT alert_id, account_id, email, balance, threshold, now, now FROM crossing),
     hook AS (${queueBalanceLow("SELECT c.account_id, c.balance, c.threshold, c.now FROM crossing c")})`;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The keys' counters, the hourly windows (and a member's key its member's day, as `dayMinuteOf`) and the usage logs. */
const COUNT_AND_LOG = `keys_held AS MATERIALIZED (
       SELECT id FROM api_keys WHERE id = ANY(?::text[]) AND id IN (SELECT key_id FROM done) AND (SELECT COUNT(*) FROM prior) > 0
       ORDER BY id FOR UPDATE),
     key AS (
       UPDATE api_keys k SET total_spend_nanos = k.total_spend_nanos + s.cost, total_requests = k.total_requests + s.requests,
         last_used_at = s.now
       FROM (SELECT key_id, SUM(cost) AS cost, SUM(requests) AS requests, MAX(now) AS now FROM done GROUP BY key_id) s
       WHERE k.id = ANY(?::text[]) AND k.id = s.key_id AND k.id IN (SELECT id FROM keys_held) RETURNING k.id, k.owner_id),
     windows AS (
       INSERT INTO usage_windows (scope, minute, spend_nanos, requests)
       SELECT scope, minute, SUM(spend), SUM(requests) FROM (
         SELECT 'a:' || account_id AS scope, minute, cost AS spend, 0 AS requests FROM done
         UNION ALL SELECT 'k:' || key_id, minute, cost, requests FROM done
         UNION ALL SELECT 'm:' || d.account_id || ':' || k.owner_id, d.now / ${DAY_MS} * 1440, d.cost, 0
           FROM done d JOIN key k ON k.id = d.key_id WHERE k.owner_id IS NOT NULL AND d.cost > 0) w
       WHERE (SELECT COUNT(*) FROM key) >= 0
       GROUP BY scope, minute ORDER BY scope, minute
       ON CONFLICT (scope, minute) DO UPDATE SET spend_nanos = usage_windows.spend_nanos + excluded.spend_nanos,
         requests = usage_windows.requests + excluded.requests),
     log AS (
       ${INSERT_USAGE_LOG}
       SELECT log_id, account_id, key_id, now, model, requested_model, prompt_tokens, completion_tokens, cost, latency_ms, 'success', NULL,
         cached_tokens, saved
       FROM done)`;

/**
 * Postgres: the settlements of a batch (see `batched`) in one statement, and so one round trip
 * and one commit. Each does what `settle` does (taken, charged, the account, the key, the
 * windows, the log); one whose charge is already in the ledger does nothing and gets null. The
 * batch's charges to one account apply in order, so the low-balance alert is judged per charge
 * on the balance before and after it, as when they are settled one by one, and each gets the
 * balance after its own charge. A settlement alone takes a statement of its own (`settleAlone`).
 */
export function* settleMany(items: Settlement[]): Work<Settled[]> {
  // The same reservation twice in a batch would be charged once but debited twice: the second
  // is answered as a settlement that comes after the first.
  const seen = new Set<string>();
  const firsts = items.filter((item) => !seen.has(item.reservationId) && seen.add(item.reservationId));
  if (firsts.length === 1) {
    const settled = yield* settleAlone(firsts[0] as Settlement);
    return items.map((item, i) => (i === 0 ? settled : null));
  }
  // Rows are also named by array, as in `admitMany`, to be reached through their primary keys.
  const reservations = [...seen];
  const accounts = [...new Set(firsts.map((s) => s.accountId))];
  const keys = [...new Set(firsts.map((s) => s.keyId))];
  const settled = yield* rows(
    `WITH ${TAKE_AND_CHARGE}, ${DEBIT_AND_ALERT}, ${COUNT_AND_LOG}
     SELECT reservation_id, after FROM steps WHERE (SELECT COUNT(*) FROM account) > 0`,
    firsts.map((s) => s.reservationId),
    firsts.map((s) => s.accountId),
    firsts.map((s) => s.keyId),
    firsts.map((s) => s.cost),
    firsts.map(() => Bun.randomUUIDv7()),
    firsts.map((s) => usageLogId(s.now)),
    firsts.map(() => Bun.randomUUIDv7()),
    firsts.map((s) => s.model),
    firsts.map((s) => s.requestedModel),
    firsts.map((s) => s.promptTokens),
    firsts.map((s) => s.completionTokens),
    firsts.map((s) => s.latencyMs),
    firsts.map((s) => s.now),
    firsts.map((s) => minuteOf(s.now)),
    firsts.map((s) => s.cachedTokens ?? 0),
    firsts.map((s) => s.saved ?? 0n),
    reservations,
    reservations,
    accounts,
    accounts,
    keys,
    keys,
  );
  const balances = new Map(settled.map((r) => [r.reservation_id as string, nanos(big(r.after))]));
  return items.map((item) => {
    const balance = firsts.includes(item) ? balances.get(item.reservationId) : undefined;
    return balance === undefined ? null : { balance };
  });
}

/**
 * A batch of Postgres settlements. If its statement fails (one settlement's value out of range,
 * a lost connection, …), each is tried again on its own, so that only one that fails by itself
 * fails. The statement may have committed before the error reached us: a charge found in the
 * ledger then counts as done.
 */
export async function settleBatch(db: Database, items: Settlement[]): Promise<(Settled | Promise<Settled>)[]> {
  try {
    return await db.run(settleMany(items));
  } catch {
    return items.map((item) =>
      db.transaction(settle(item)).catch(async (error: unknown) => {
        if (!(error instanceof AlreadyCharged)) throw error;
        const account = await db.run(first("SELECT balance_nanos FROM accounts WHERE id = ?", item.accountId));
        return { balance: nanos(big(account?.balance_nanos)) };
      }),
    );
  }
}
