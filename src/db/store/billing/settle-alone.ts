import { nanos, type Nanos } from "../../../core/money.ts";
import type { Settlement } from "../../../core/store.ts";
import { dayMinuteOf, minuteOf } from "../../../core/billing/hour-window.ts";
import { big, rows, type Work } from "../../sql.ts";
import { queueBalanceLow } from "../webhooks.ts";
import { INSERT_USAGE_LOG, usageLogId } from "./usage-log.ts";

/**
 * Postgres: one settlement in one statement, as `settleMany` settles a batch, for when it is
 * alone (a request at concurrency 1 waits for it). Named by scalar parameters, it keeps its
 * generic plan: the batch statement's `= ANY(array)` and `unnest` made Postgres plan it afresh on
 * every execution (~0.8 ms) once the tables had grown under load, and its steps for charges in
 * order (window functions, per-account sums) cost ~150 µs more than these for one charge.
 *
 * It does what `settle` does, in the same lock order as the batch: the reservation, the charge's
 * idempotency key, the account, the key and the windows (a member's key also its member's day). The low-balance alert is
 * `alertTransition` (src/core/alerts/low-balance.ts) for one charge, judged on the account row as locked,
 * with the account's `balance.low` webhook event (`queueBalanceLow`).
 * Each step waits for the one before through a subquery, since Postgres otherwise runs
 * data-modifying CTEs in no set order. Returns the balance after the charge, or no row when the
 * charge was already in the ledger: then nothing changes, the reservation included (as
 * `settle`'s rollback leaves it).
 */
const SETTLE_ALONE = `WITH taken AS (
       DELETE FROM reservations WHERE id = $1::text
         AND NOT EXISTS (SELECT 1 FROM ledger_entries WHERE idempotency_key = 'charge:' || $1::text)
       RETURNING amount_nanos),
     charged AS (
       INSERT INTO ledger_entries (id, account_id, kind, amount_nanos, idempotency_key, note, created_at)
       SELECT $7::text, $2::text, 'charge', -$4::bigint, 'charge:' || $1::text, NULL, $5::bigint WHERE (SELECT COUNT(*) FROM taken) >= 0
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING id),
     prior AS MATERIALIZED (
       SELECT id, email, alert_threshold_nanos AS threshold, alert_armed = 1 AS armed, balance_nanos AS before,
         balance_nanos - $4::bigint AS after
       FROM accounts WHERE id = $2::text AND EXISTS (SELECT 1 FROM charged) FOR UPDATE),
     crossing AS (SELECT id, email, after, threshold FROM prior WHERE armed AND before >= threshold AND after < threshold),
     account AS (
       UPDATE accounts a SET balance_nanos = a.balance_nanos - $4::bigint,
         reserved_nanos = a.reserved_nanos - COALESCE((SELECT amount_nanos FROM taken), 0),
         inflight = a.inflight - (SELECT COUNT(*) FROM taken),
         alert_armed = CASE WHEN pr.threshold IS NULL THEN a.alert_armed WHEN EXISTS (SELECT 1 FROM crossing) THEN 0
           WHEN pr.armed OR pr.after >= pr.threshold THEN 1 ELSE 0 END
       FROM prior pr WHERE a.id = $2::text AND a.id = pr.id RETURNING a.id),
     alert AS (
       INSERT INTO alert_outbox (id, account_id, email, balance_nanos, threshold_nanos, created_at, next_attempt_at)
       SELECT $8::text, id, email, after, threshold, $5::bigint, $5::bigint FROM crossing),
     hook AS (${queueBalanceLow("SELECT c.id, c.after, c.threshold, $5::bigint FROM crossing c")}),
     key AS (
       UPDATE api_keys SET total_spend_nanos = total_spend_nanos + $4::bigint,
         total_requests = total_requests + (SELECT COUNT(*) FROM taken), last_used_at = $5::bigint
       WHERE id = $3::text AND (SELECT COUNT(*) FROM account) > 0 RETURNING id, owner_id),
     windows AS (
       INSERT INTO usage_windows (scope, minute, spend_nanos, requests)
       SELECT scope, minute, $4::bigint, requests
       FROM (VALUES ('a:' || $2::text, $6::bigint, 0::bigint), ('k:' || $3::text, $6::bigint, (SELECT COUNT(*) FROM taken))) AS w(scope, minute, requests)
       WHERE (SELECT COUNT(*) FROM account) > 0 AND (SELECT COUNT(*) FROM key) >= 0
       UNION ALL SELECT 'm:' || $2::text || ':' || owner_id, $17::bigint, $4::bigint, 0 FROM key WHERE owner_id IS NOT NULL AND $4::bigint > 0
       ON CONFLICT (scope, minute) DO UPDATE SET spend_nanos = usage_windows.spend_nanos + excluded.spend_nanos,
         requests = usage_windows.requests + excluded.requests),
     log AS (
       ${INSERT_USAGE_LOG}
       SELECT $9::text, $2::text, $3::text, $5::bigint, $10::text, $11::text, $12::bigint, $13::bigint, $4::bigint, $14::bigint, 'success', NULL,
         $15::bigint, $16::bigint
       WHERE (SELECT COUNT(*) FROM account) > 0)
     SELECT after FROM prior WHERE (SELECT COUNT(*) FROM account) > 0`;

/** The balance after the charge, or null when it was already charged. */
export function* settleAlone(s: Settlement): Work<{ balance: Nanos } | null> {
  const [settled] = yield* rows(
    SETTLE_ALONE,
    s.reservationId, s.accountId, s.keyId, s.cost, s.now, minuteOf(s.now), Bun.randomUUIDv7(), Bun.randomUUIDv7(), usageLogId(s.now),
    s.model, s.requestedModel, s.promptTokens, s.completionTokens, s.latencyMs, s.cachedTokens ?? 0, s.saved ?? 0n, dayMinuteOf(s.now),
  );
  return settled ? { balance: nanos(big(settled.after)) } : null;
}
