import { nanos, type Nanos } from "../../core/money.ts";
import { decideReservation, minuteOf, windowStartMinute, type HourWindow } from "../../core/reservation.ts";
import type { AccountAudit, BillingStore, NewReservation, Release, ReservationOutcome, Settlement } from "../../core/store.ts";
import type { Database } from "../database.ts";
import type { Dialect } from "../migration-files.ts";
import { big, exec, first, int, intOrNull, rows, type Work } from "../sql.ts";
import { appendLedger } from "./accounts.ts";

// Usage-window scopes: spend per account (the safety limit), spend and requests per key.
const accountScope = (accountId: string) => `a:${accountId}`;
const keyScope = (keyId: string) => `k:${keyId}`;
const EMPTY_WINDOW: HourWindow = { spend: nanos(0), requests: 0, oldestMinute: null };

function* hourWindows(scopes: string[], now: number): Work<Map<string, HourWindow>> {
  const placeholders = scopes.map(() => "?").join(", ");
  const found = yield* rows(
    `SELECT scope, SUM(spend_nanos) AS spend, SUM(requests) AS requests, MIN(minute) AS oldest
     FROM usage_windows WHERE scope IN (${placeholders}) AND minute > ? GROUP BY scope`,
    ...scopes, windowStartMinute(now),
  );
  return new Map(
    found.map((r) => [r.scope as string, { spend: nanos(big(r.spend)), requests: int(r.requests), oldestMinute: intOrNull(r.oldest) }]),
  );
}

function* addToWindows(entries: { scope: string; spend: Nanos; requests: number }[], now: number): Work<void> {
  const minute = minuteOf(now);
  yield* exec(
    `INSERT INTO usage_windows (scope, minute, spend_nanos, requests) VALUES ${entries.map(() => "(?, ?, ?, ?)").join(", ")}
     ON CONFLICT (scope, minute) DO UPDATE SET spend_nanos = usage_windows.spend_nanos + excluded.spend_nanos,
       requests = usage_windows.requests + excluded.requests`,
    ...entries.flatMap((e) => [e.scope, minute, e.spend, e.requests]),
  );
}

/**
 * Reserves under the account row's lock, taken first by every reservation and settlement of
 * the account, so that nothing read here can change until the transaction ends (SQLite:
 * BEGIN IMMEDIATE). Admission is all this writes: the key's counters and hourly windows move
 * when the request ends, and until then its open reservation counts toward them.
 */
function* reserve(dialect: Dialect, input: NewReservation): Work<ReservationOutcome> {
  const { account, key, now } = input;
  const locked = yield* first(
    `SELECT balance_nanos, reserved_nanos, inflight, spend_limit_nanos FROM accounts WHERE id = ?${dialect === "postgres" ? " FOR UPDATE" : ""}`,
    account.id,
  );
  if (!locked) throw new Error(`reservation for unknown account ${account.id}`);
  const spendLimit = locked.spend_limit_nanos === null ? null : nanos(big(locked.spend_limit_nanos));

  const needsWindows = spendLimit !== null || hasKeyLimits(key);
  const windows = needsWindows ? yield* hourWindows([accountScope(account.id), keyScope(key.id)], now) : new Map();
  const keyHour: HourWindow = windows.get(keyScope(key.id)) ?? EMPTY_WINDOW;
  let committed = nanos(0);
  let openRequests = 0;
  if (key.creditLimit !== null || key.requestsPerHour !== null) {
    const open = yield* first(
      `SELECT k.total_spend_nanos AS spent, (SELECT COUNT(*) FROM reservations WHERE key_id = k.id) AS open_requests,
         COALESCE((SELECT SUM(amount_nanos) FROM reservations WHERE key_id = k.id), 0) AS open_amount
       FROM api_keys k WHERE k.id = ?`,
      key.id,
    );
    committed = nanos(big(open?.spent) + big(open?.open_amount));
    openRequests = int(open?.open_requests);
  }

  const refusal = decideReservation(
    {
      inflight: int(locked.inflight),
      available: nanos(big(locked.balance_nanos) - big(locked.reserved_nanos)),
      accountSpendLimit: spendLimit,
      accountHour: windows.get(accountScope(account.id)) ?? EMPTY_WINDOW,
      key: {
        creditLimit: key.creditLimit,
        usdPerHour: key.usdPerHour,
        requestsPerHour: key.requestsPerHour,
        committed,
        hour: { ...keyHour, requests: keyHour.requests + openRequests },
      },
    },
    input.amount,
    input.policy,
    now,
  );
  if (refusal) return { ok: false, error: refusal };

  const reservationId = Bun.randomUUIDv7();
  yield* exec(
    `INSERT INTO reservations (id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    reservationId, account.id, key.id, input.model, input.requestedModel, input.amount, now, now + input.leaseMs,
  );
  yield* exec("UPDATE accounts SET reserved_nanos = reserved_nanos + ?, inflight = inflight + 1 WHERE id = ?", input.amount, account.id);
  return { ok: true, reservationId };
}

const hasKeyLimits = (key: NewReservation["key"]) =>
  key.creditLimit !== null || key.usdPerHour !== null || key.requestsPerHour !== null;

/**
 * Postgres only: admits a request in one statement, and so one round trip, when nothing but
 * the balance and the concurrency limit can refuse it (the key's limits as it was just looked
 * up, the account's safety limit in the statement). The UPDATE's condition is evaluated on
 * the locked, latest row; the reservation row is inserted only if it matched. Returns null
 * when the request needs the full decision (which also words the refusal).
 */
function* admitAtOnce(input: NewReservation): Work<string | null> {
  if (hasKeyLimits(input.key)) return null;
  const reservationId = Bun.randomUUIDv7();
  const admitted = yield* first(
    `WITH admitted AS (
       UPDATE accounts SET reserved_nanos = reserved_nanos + ?, inflight = inflight + 1
       WHERE id = ? AND inflight < ? AND balance_nanos - reserved_nanos >= ? AND spend_limit_nanos IS NULL
       RETURNING id)
     INSERT INTO reservations (id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at)
     SELECT ?::text, id, ?::text, ?::text, ?::text, ?::bigint, ?::bigint, ?::bigint FROM admitted RETURNING id`,
    input.amount, input.account.id, input.policy.maxConcurrentRequests, input.amount,
    reservationId, input.key.id, input.model, input.requestedModel, input.amount, input.now, input.now + input.leaseMs,
  );
  return admitted ? reservationId : null;
}

interface Held {
  accountId: string;
  keyId: string;
  model: string;
  requestedModel: string;
  amount: Nanos;
}

function* takeReservation(id: string): Work<Held | null> {
  const row = yield* first(
    "DELETE FROM reservations WHERE id = ? RETURNING account_id, key_id, model, requested_model, amount_nanos",
    id,
  );
  if (!row) return null;
  return {
    accountId: row.account_id as string,
    keyId: row.key_id as string,
    model: row.model as string,
    requestedModel: row.requested_model as string,
    amount: nanos(big(row.amount_nanos)),
  };
}

interface UsageLog {
  held: Held;
  promptTokens: number;
  completionTokens: number;
  cost: Nanos;
  latencyMs: number;
  status: "success" | "error";
  error: string | null;
  now: number;
}

const INSERT_USAGE_LOG = `INSERT INTO usage_logs (id, account_id, key_id, created_at, model, requested_model, prompt_tokens,
  completion_tokens, cost_nanos, latency_ms, status, error)`;

function* writeUsageLog(log: UsageLog): Work<void> {
  yield* exec(
    `${INSERT_USAGE_LOG} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    Bun.randomUUIDv7(), log.held.accountId, log.held.keyId, log.now, log.held.model, log.held.requestedModel,
    log.promptTokens, log.completionTokens, log.cost, log.latencyMs, log.status, log.error,
  );
}

const COUNT_ON_KEY = "UPDATE api_keys SET total_spend_nanos = total_spend_nanos + ?, total_requests = total_requests + ?, last_used_at = ? WHERE id = ?";

/** A request that ended adds its cost and itself (once: `requests` is 0 for a late charge) to its key and the hourly windows. */
function* countEnded(held: Held, cost: Nanos, requests: number, now: number): Work<void> {
  yield* exec(COUNT_ON_KEY, cost, requests, now, held.keyId);
  yield* addToWindows(
    [
      { scope: accountScope(held.accountId), spend: cost, requests: 0 },
      { scope: keyScope(held.keyId), spend: cost, requests },
    ],
    now,
  );
}

const chargeKey = (reservationId: string) => `charge:${reservationId}`;

function* settle(input: Settlement): Work<{ balance: Nanos }> {
  // A request that outlived its lease was already released by the sweeper: it is still
  // charged, but there is nothing left to release.
  const taken = yield* takeReservation(input.reservationId);
  const held: Held = taken ?? { ...input, amount: nanos(0) };
  // The charge is keyed by its reservation, so a settlement can never be applied twice.
  const charged = yield* appendLedger(
    { accountId: held.accountId, amount: nanos(-input.cost), kind: "charge", idempotencyKey: chargeKey(input.reservationId), now: input.now },
    { reserved: held.amount, requests: taken ? 1 : 0 },
  );
  if (!charged) throw new Error(`reservation ${input.reservationId} was already charged`);
  yield* countEnded(held, input.cost, taken ? 1 : 0, input.now);
  yield* writeUsageLog({ ...input, held, status: "success", error: null });
  return charged;
}

/**
 * Postgres: `settle` as one statement in its own transaction, so one round trip instead of
 * eight. The steps are those of `settle` (taken, charged, the account, the key, the windows,
 * the log), each after the first skipped when the charge is already in the ledger, and the
 * low-balance alert of `alertTransition` (src/core/alerts.ts) for a debit, judged on the
 * account row as it was before the charge: `prior` locks it, after the reservation (it joins
 * `ended`), the order `release` takes them in.
 */
function* settleAtOnce(input: Settlement): Work<{ balance: Nanos }> {
  const minute = minuteOf(input.now);
  const settled = yield* first(
    `WITH taken AS (DELETE FROM reservations WHERE id = ? RETURNING amount_nanos),
     ended AS (SELECT COUNT(*) AS requests, COALESCE(SUM(amount_nanos), 0) AS reserved FROM taken),
     prior AS (
       SELECT a.id, a.email, a.alert_threshold_nanos AS threshold, a.alert_armed = 1 AS armed,
         a.balance_nanos AS before, a.balance_nanos - ?::bigint AS after
       FROM accounts a, ended WHERE a.id = ? FOR UPDATE OF a),
     move AS (
       SELECT prior.*, armed AND before >= threshold AND after < threshold AS alerts,
         NOT armed AND after >= threshold AS rearms
       FROM prior),
     charged AS (
       INSERT INTO ledger_entries (id, account_id, kind, amount_nanos, idempotency_key, note, created_at)
       VALUES (?, ?, 'charge', ?, ?, NULL, ?) ON CONFLICT (idempotency_key) DO NOTHING RETURNING account_id),
     account AS (
       UPDATE accounts a SET balance_nanos = move.after, reserved_nanos = a.reserved_nanos - ended.reserved,
         inflight = a.inflight - ended.requests,
         alert_armed = CASE WHEN move.alerts THEN 0 WHEN move.rearms THEN 1 ELSE a.alert_armed END
       FROM ended, move WHERE a.id = move.id AND EXISTS (SELECT 1 FROM charged)
       RETURNING a.balance_nanos, move.alerts, move.email, move.threshold),
     alert AS (
       INSERT INTO alert_outbox (id, account_id, email, balance_nanos, threshold_nanos, created_at, next_attempt_at)
       SELECT ?::text, ?::text, email, balance_nanos, threshold, ?::bigint, ?::bigint FROM account WHERE alerts),
     key AS (
       UPDATE api_keys SET total_spend_nanos = total_spend_nanos + ?, total_requests = total_requests + ended.requests, last_used_at = ?
       FROM ended WHERE id = ? AND EXISTS (SELECT 1 FROM charged)),
     windows AS (
       INSERT INTO usage_windows (scope, minute, spend_nanos, requests)
       SELECT ?::text, ?::bigint, ?::bigint, 0 FROM charged
       UNION ALL SELECT ?::text, ?::bigint, ?::bigint, ended.requests FROM ended, charged
       ON CONFLICT (scope, minute) DO UPDATE SET spend_nanos = usage_windows.spend_nanos + excluded.spend_nanos,
         requests = usage_windows.requests + excluded.requests),
     log AS (
       ${INSERT_USAGE_LOG}
       SELECT ?::text, ?::text, ?::text, ?::bigint, ?::text, ?::text, ?::bigint, ?::bigint, ?::bigint, ?::bigint, 'success', NULL FROM charged)
     SELECT balance_nanos FROM account`,
    input.reservationId,
    input.cost, input.accountId,
    Bun.randomUUIDv7(), input.accountId, -input.cost, chargeKey(input.reservationId), input.now,
    Bun.randomUUIDv7(), input.accountId, input.now, input.now,
    input.cost, input.now, input.keyId,
    accountScope(input.accountId), minute, input.cost, keyScope(input.keyId), minute, input.cost,
    Bun.randomUUIDv7(), input.accountId, input.keyId, input.now, input.model, input.requestedModel,
    input.promptTokens, input.completionTokens, input.cost, input.latencyMs,
  );
  if (!settled) throw new Error(`reservation ${input.reservationId} was already charged`);
  return { balance: nanos(big(settled.balance_nanos)) };
}

function* release(input: Release): Work<boolean> {
  const held = yield* takeReservation(input.reservationId);
  if (!held) return false;
  yield* exec(
    "UPDATE accounts SET reserved_nanos = reserved_nanos - ?, inflight = inflight - 1 WHERE id = ?",
    held.amount, held.accountId,
  );
  yield* countEnded(held, nanos(0), 1, input.now);
  yield* writeUsageLog({
    held, promptTokens: 0, completionTokens: 0, cost: nanos(0), latencyMs: input.latencyMs, status: "error", error: input.reason, now: input.now,
  });
  return true;
}

const SWEEP_BATCH = 100;
const RENEW_BATCH = 500;
const LEASE_EXPIRED = "Reservation lease expired: the gateway process handling the request stopped before it finished";

async function sweep(db: Database, now: number): Promise<number> {
  const expired = await db.run(
    rows("SELECT id, created_at FROM reservations WHERE lease_expires_at < ? ORDER BY lease_expires_at LIMIT ?", now, SWEEP_BATCH),
  );
  let released = 0;
  for (const r of expired) {
    // Each in its own transaction; another instance sweeping the same row finds it gone.
    const done = await db.transaction(
      release({ reservationId: r.id as string, reason: LEASE_EXPIRED, latencyMs: now - int(r.created_at), now }),
    );
    if (done) released++;
  }
  return released;
}

function* auditAccount(accountId: string): Work<AccountAudit | null> {
  const row = yield* first(
    `SELECT a.balance_nanos, a.reserved_nanos,
       (SELECT COALESCE(SUM(amount_nanos), 0) FROM ledger_entries WHERE account_id = a.id) AS ledger_sum,
       (SELECT COALESCE(SUM(amount_nanos), 0) FROM ledger_entries WHERE account_id = a.id AND amount_nanos > 0) AS credited,
       (SELECT COALESCE(SUM(cost_nanos), 0) FROM usage_logs WHERE account_id = a.id) AS usage_cost,
       (SELECT COUNT(*) FROM reservations WHERE account_id = a.id) AS open_reservations
     FROM accounts a WHERE a.id = ?`,
    accountId,
  );
  if (!row) return null;
  return {
    balance: nanos(big(row.balance_nanos)),
    ledgerSum: nanos(big(row.ledger_sum)),
    credited: nanos(big(row.credited)),
    usageCost: nanos(big(row.usage_cost)),
    reserved: nanos(big(row.reserved_nanos)),
    openReservations: int(row.open_reservations),
  };
}

export const billingStore = (db: Database): BillingStore => ({
  reserve: async (input) => {
    if (db.dialect === "postgres") {
      const reservationId = await db.run(admitAtOnce(input));
      if (reservationId) return { ok: true, reservationId };
    }
    return db.transaction(reserve(db.dialect, input));
  },
  settle: (input) => (db.dialect === "postgres" ? db.run(settleAtOnce(input)) : db.transaction(settle(input))),
  release: async (input) => {
    await db.transaction(release(input));
  },
  renewLeases: async (ids, leaseExpiresAt) => {
    for (let i = 0; i < ids.length; i += RENEW_BATCH) {
      const batch = ids.slice(i, i + RENEW_BATCH);
      await db.run(
        exec(`UPDATE reservations SET lease_expires_at = ? WHERE id IN (${batch.map(() => "?").join(", ")})`, leaseExpiresAt, ...batch),
      );
    }
  },
  sweepExpiredReservations: (now) => sweep(db, now),
  auditAccount: (accountId) => db.run(auditAccount(accountId)),
});
