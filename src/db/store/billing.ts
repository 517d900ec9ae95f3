import { nanos, type Nanos } from "../../core/money.ts";
import { decideReservation, minuteOf, windowStartMinute, type HourWindow } from "../../core/reservation.ts";
import type { AccountAudit, BillingStore, NewReservation, Release, ReservationOutcome, Settlement } from "../../core/store.ts";
import { batched } from "../batched.ts";
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
 * Postgres only: admits the requests of a batch (see `batched`) in one statement, and so one
 * round trip and one commit, when nothing but the balance and the concurrency limit can refuse
 * them (the key's limits as it was just looked up, the account's safety limit in the
 * statement). Per account it is all or nothing: the batch's requests of an account are admitted
 * together if the locked, latest row has room and balance for all of them. Account rows are
 * locked in id order, as every batch does, so that concurrent batches cannot deadlock. Returns
 * the reservation ID per request, or null for one that needs the full decision (which also
 * words a refusal).
 */
function* admitMany(items: NewReservation[]): Work<(string | null)[]> {
  const ids = items.map(() => Bun.randomUUIDv7());
  // The rows are also named by array (`id = ANY(…)`), so that Postgres reaches them through the
  // primary key rather than scanning a table whose rows are rewritten thousands of times a second.
  const accounts = [...new Set(items.map((r) => r.account.id))];
  const admitted = yield* rows(
    `WITH input AS (
       SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[])
         AS i(id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at, max_inflight)),
     per_account AS (
       SELECT account_id, SUM(amount_nanos) AS amount, COUNT(*) AS requests, MIN(max_inflight) AS max_inflight
       FROM input GROUP BY account_id),
     locked AS MATERIALIZED (SELECT id FROM accounts WHERE id = ANY(?::text[]) ORDER BY id FOR UPDATE SKIP LOCKED),
     admitted AS (
       UPDATE accounts a SET reserved_nanos = a.reserved_nanos + p.amount, inflight = a.inflight + p.requests
       FROM per_account p WHERE a.id = ANY(?::text[]) AND a.id = p.account_id AND a.id IN (SELECT id FROM locked)
         AND a.inflight + p.requests <= p.max_inflight AND a.balance_nanos - a.reserved_nanos >= p.amount
         AND a.spend_limit_nanos IS NULL
       RETURNING a.id)
     INSERT INTO reservations (id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at)
     SELECT id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at
     FROM input WHERE account_id IN (SELECT id FROM admitted) RETURNING id`,
    ids,
    items.map((r) => r.account.id),
    items.map((r) => r.key.id),
    items.map((r) => r.model),
    items.map((r) => r.requestedModel),
    items.map((r) => r.amount),
    items.map((r) => r.now),
    items.map((r) => r.now + r.leaseMs),
    items.map((r) => r.policy.maxConcurrentRequests),
    accounts,
    accounts,
  );
  const taken = new Set(admitted.map((r) => r.id as string));
  return ids.map((id) => (taken.has(id) ? id : null));
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

/** A settlement whose charge is already in the ledger: it changed nothing. */
export class AlreadyCharged extends Error {
  constructor(reservationId: string) {
    super(`reservation ${reservationId} was already charged`);
  }
}

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
  if (!charged) throw new AlreadyCharged(input.reservationId);
  yield* countEnded(held, input.cost, taken ? 1 : 0, input.now);
  yield* writeUsageLog({ ...input, held, status: "success", error: null });
  return charged;
}

/** A settlement's outcome in a batch: the balance after its charge, or null when it was already charged. */
type Settled = { balance: Nanos } | null;

/**
 * Postgres: the settlements of a batch (see `batched`) in one statement, and so one round trip
 * and one commit. Each does what `settle` does (taken, charged, the account, the key, the
 * windows, the log); one whose charge is already in the ledger does nothing and gets null. The
 * batch's charges to one account apply in order, so the low-balance alert of `alertTransition`
 * (src/core/alerts.ts) is judged per charge on the balance before and after it, as when they
 * are settled one by one, and each gets the balance after its own charge.
 *
 * Rows are locked in one order by every batch and by `release`: reservations, then the charges'
 * idempotency keys, accounts, keys and windows, each by id. Each of these steps waits for the
 * one before (an uncorrelated subquery runs to completion first, and a join reads its CTE),
 * since Postgres otherwise runs data-modifying CTEs in no set order; the alert and the usage
 * logs, new rows only, are written at the end.
 */
function* settleMany(items: Settlement[]): Work<Settled[]> {
  // The same reservation twice in a batch would be charged once but debited twice: the second
  // is answered as a settlement that comes after the first.
  const seen = new Set<string>();
  const firsts = items.filter((item) => !seen.has(item.reservationId) && seen.add(item.reservationId));
  // Rows are also named by array, as in `admitMany`, to be reached through their primary keys.
  const reservations = [...seen];
  const accounts = [...new Set(firsts.map((s) => s.accountId))];
  const keys = [...new Set(firsts.map((s) => s.keyId))];
  const settled = yield* rows(
    `WITH input AS (
       SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
         ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[])
         WITH ORDINALITY AS i(reservation_id, account_id, key_id, cost, ledger_id, log_id, alert_id, model, requested_model,
           prompt_tokens, completion_tokens, latency_ms, now, minute, ord)),
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
       LEFT JOIN taken t ON t.id = i.reservation_id),
     per_account AS (
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
     keys_held AS MATERIALIZED (
       SELECT id FROM api_keys WHERE id = ANY(?::text[]) AND id IN (SELECT key_id FROM done) AND (SELECT COUNT(*) FROM prior) > 0
       ORDER BY id FOR UPDATE),
     key AS (
       UPDATE api_keys k SET total_spend_nanos = k.total_spend_nanos + s.cost, total_requests = k.total_requests + s.requests,
         last_used_at = s.now
       FROM (SELECT key_id, SUM(cost) AS cost, SUM(requests) AS requests, MAX(now) AS now FROM done GROUP BY key_id) s
       WHERE k.id = ANY(?::text[]) AND k.id = s.key_id AND k.id IN (SELECT id FROM keys_held) RETURNING k.id),
     windows AS (
       INSERT INTO usage_windows (scope, minute, spend_nanos, requests)
       SELECT scope, minute, SUM(spend), SUM(requests) FROM (
         SELECT 'a:' || account_id AS scope, minute, cost AS spend, 0 AS requests FROM done
         UNION ALL SELECT 'k:' || key_id, minute, cost, requests FROM done) w
       WHERE (SELECT COUNT(*) FROM key) >= 0
       GROUP BY scope, minute ORDER BY scope, minute
       ON CONFLICT (scope, minute) DO UPDATE SET spend_nanos = usage_windows.spend_nanos + excluded.spend_nanos,
         requests = usage_windows.requests + excluded.requests),
     log AS (
       ${INSERT_USAGE_LOG}
       SELECT log_id, account_id, key_id, now, model, requested_model, prompt_tokens, completion_tokens, cost, latency_ms, 'success', NULL
       FROM done)
     SELECT reservation_id, after FROM steps WHERE (SELECT COUNT(*) FROM account) > 0`,
    firsts.map((s) => s.reservationId),
    firsts.map((s) => s.accountId),
    firsts.map((s) => s.keyId),
    firsts.map((s) => s.cost),
    firsts.map(() => Bun.randomUUIDv7()),
    firsts.map(() => Bun.randomUUIDv7()),
    firsts.map(() => Bun.randomUUIDv7()),
    firsts.map((s) => s.model),
    firsts.map((s) => s.requestedModel),
    firsts.map((s) => s.promptTokens),
    firsts.map((s) => s.completionTokens),
    firsts.map((s) => s.latencyMs),
    firsts.map((s) => s.now),
    firsts.map((s) => minuteOf(s.now)),
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

// At most 200 requests share a Postgres admission or settlement statement, and at most four of
// each kind run at once, leaving the pool's other connections to key lookups and the rest.
const BATCHES = { max: 200, inFlight: 4 };

/**
 * A batch of Postgres settlements. If its statement fails (one settlement's value out of range,
 * a lost connection, …), each is tried again on its own, so that only one that fails by itself
 * fails. The statement may have committed before the error reached us: a charge found in the
 * ledger then counts as done.
 */
async function settleBatch(db: Database, items: Settlement[]): Promise<(Settled | Promise<Settled>)[]> {
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

export function billingStore(db: Database): BillingStore {
  // Postgres: concurrent requests' admissions, and their settlements, share statements and commits.
  const batches =
    db.dialect === "postgres"
      ? {
          admit: batched((items: NewReservation[]) => db.run(admitMany(items)), BATCHES),
          settle: batched((items: Settlement[]) => settleBatch(db, items), BATCHES),
        }
      : null;
  return {
    reserve: async (input) => {
      if (batches && !hasKeyLimits(input.key)) {
        const reservationId = await batches.admit(input);
        if (reservationId) return { ok: true, reservationId };
      }
      return db.transaction(reserve(db.dialect, input));
    },
    settle: async (input) => {
      if (!batches) return db.transaction(settle(input));
      const settled = await batches.settle(input);
      if (!settled) throw new AlreadyCharged(input.reservationId);
      return settled;
    },
    release: async (input) => {
      await db.transaction(release(input));
    },
    renewLeases: async (ids, leaseExpiresAt) => {
      for (let i = 0; i < ids.length; i += RENEW_BATCH) {
        const batch = ids.slice(i, i + RENEW_BATCH);
        const list = batch.map(() => "?").join(", ");
        // Postgres: locked in id order, as settlement batches lock them, so that they cannot deadlock.
        const locked = db.dialect === "postgres" ? `SELECT id FROM reservations WHERE id IN (${list}) ORDER BY id FOR UPDATE` : list;
        await db.run(exec(`UPDATE reservations SET lease_expires_at = ? WHERE id IN (${locked})`, leaseExpiresAt, ...batch));
      }
    },
    sweepExpiredReservations: (now) => sweep(db, now),
    auditAccount: (accountId) => db.run(auditAccount(accountId)),
  };
}
