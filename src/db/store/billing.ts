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

function* reserve(dialect: Dialect, input: NewReservation): Work<ReservationOutcome> {
  const { account, key, now } = input;
  // The account row is the lock every reservation and settlement of the account takes first,
  // so what is read below cannot change until this transaction ends. (SQLite: IMMEDIATE.)
  const locked = yield* first(
    `SELECT balance_nanos, reserved_nanos, inflight, spend_limit_nanos FROM accounts WHERE id = ?${dialect === "postgres" ? " FOR UPDATE" : ""}`,
    account.id,
  );
  if (!locked) throw new Error(`reservation for unknown account ${account.id}`);
  const spendLimit = locked.spend_limit_nanos === null ? null : nanos(big(locked.spend_limit_nanos));

  const needsWindows = spendLimit !== null || key.usdPerHour !== null || key.requestsPerHour !== null;
  const windows = needsWindows ? yield* hourWindows([accountScope(account.id), keyScope(key.id)], now) : new Map();
  let committed = nanos(0);
  if (key.creditLimit !== null) {
    const spent = yield* first(
      `SELECT k.total_spend_nanos + COALESCE((SELECT SUM(amount_nanos) FROM reservations WHERE key_id = k.id), 0) AS committed
       FROM api_keys k WHERE k.id = ?`,
      key.id,
    );
    committed = nanos(big(spent?.committed));
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
        hour: windows.get(keyScope(key.id)) ?? EMPTY_WINDOW,
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
  yield* exec("UPDATE api_keys SET total_requests = total_requests + 1, last_used_at = ? WHERE id = ?", now, key.id);
  // A request counts toward the key's hourly request limit when it is admitted.
  yield* addToWindows([{ scope: keyScope(key.id), spend: nanos(0), requests: 1 }], now);
  return { ok: true, reservationId };
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

function* writeUsageLog(log: UsageLog): Work<void> {
  yield* exec(
    `INSERT INTO usage_logs (id, account_id, key_id, created_at, model, requested_model, prompt_tokens, completion_tokens,
       cost_nanos, latency_ms, status, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    Bun.randomUUIDv7(), log.held.accountId, log.held.keyId, log.now, log.held.model, log.held.requestedModel,
    log.promptTokens, log.completionTokens, log.cost, log.latencyMs, log.status, log.error,
  );
}

function* settle(input: Settlement): Work<{ balance: Nanos }> {
  // A request that outlived its lease was already released by the sweeper: it is still
  // charged, but there is nothing left to release.
  const taken = yield* takeReservation(input.reservationId);
  const held: Held = taken ?? { ...input, amount: nanos(0) };
  // The charge is keyed by its reservation, so a settlement can never be applied twice.
  const charged = yield* appendLedger(
    { accountId: held.accountId, amount: nanos(-input.cost), kind: "charge", idempotencyKey: `charge:${input.reservationId}`, now: input.now },
    { reserved: held.amount, requests: taken ? 1 : 0 },
  );
  if (!charged) throw new Error(`reservation ${input.reservationId} was already charged`);
  yield* exec("UPDATE api_keys SET total_spend_nanos = total_spend_nanos + ? WHERE id = ?", input.cost, held.keyId);
  yield* addToWindows(
    [
      { scope: accountScope(held.accountId), spend: input.cost, requests: 0 },
      { scope: keyScope(held.keyId), spend: input.cost, requests: 0 },
    ],
    input.now,
  );
  yield* writeUsageLog({ ...input, held, status: "success", error: null });
  return charged;
}

function* release(input: Release): Work<boolean> {
  const held = yield* takeReservation(input.reservationId);
  if (!held) return false;
  yield* exec(
    "UPDATE accounts SET reserved_nanos = reserved_nanos - ?, inflight = inflight - 1 WHERE id = ?",
    held.amount, held.accountId,
  );
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
  reserve: (input) => db.transaction(reserve(db.dialect, input)),
  settle: (input) => db.transaction(settle(input)),
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
