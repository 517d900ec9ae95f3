import { nanos } from "../../../core/money.ts";
import { decideReservation, keyLimitOf, type KeyLimit, type ReservationSnapshot } from "../../../core/billing/reservation.ts";
import type { NewReservation, ReservationOutcome } from "../../../core/store.ts";
import type { Dialect } from "../../migration-files.ts";
import { big, exec, first, int, type Work } from "../../sql.ts";
import { SET_ASYNC_COMMIT } from "./async-commit.ts";
import { queueWebhookEvent } from "../webhooks.ts";
import { accountScope, hourWindows, keyScope, memberScope } from "./windows.ts";
import { dayMinuteOf } from "../../../core/billing/hour-window.ts";
import { AppError } from "../../../core/errors.ts";

export const hasKeyLimits = (key: NewReservation["key"]) =>
  key.creditLimit !== null || key.usdPerHour !== null || key.requestsPerHour !== null;

/**
 * What `decideReservation` needs, read after the account row's lock is taken. That lock also
 * holds the key still: a key belongs to one account, and every reservation, settlement and
 * release of it takes the account's row before touching the key's reservations, counters or
 * windows, so none of them can change between these reads and the insert. Null for a key of
 * an organization whose member was removed since the key was looked up.
 */
function* readSnapshot(dialect: Dialect, input: NewReservation): Work<ReservationSnapshot | null> {
  const { account, key, now } = input;
  const locked = yield* first(
    `SELECT balance_nanos, reserved_nanos, inflight, spend_limit_nanos, kind,
       (SELECT pending_since FROM auto_topups t WHERE t.account_id = accounts.id AND t.enabled = 1) AS topup_pending
     FROM accounts WHERE id = ?${dialect === "postgres" ? " FOR UPDATE OF accounts" : ""}`,
    account.id,
  );
  if (!locked) throw new Error(`reservation for unknown account ${account.id}`);
  const spendLimit = locked.spend_limit_nanos === null ? null : nanos(big(locked.spend_limit_nanos));

  const keyLimited = hasKeyLimits(key);
  const windows = spendLimit !== null || keyLimited ? yield* hourWindows([accountScope(account.id), keyScope(key.id)], now) : new Map();
  const open = keyLimited
    ? yield* first(
        `SELECT k.total_spend_nanos AS spent, (SELECT COUNT(*) FROM reservations WHERE key_id = k.id) AS open_requests,
           COALESCE((SELECT SUM(amount_nanos) FROM reservations WHERE key_id = k.id), 0) AS open_amount
         FROM api_keys k WHERE k.id = ?`,
        key.id,
      )
    : undefined;
  const org = locked.kind === "organization" ? yield* readOrgShare(input) : undefined;
  if (org === null) return null;
  return {
    inflight: org ? org.inflight : int(locked.inflight),
    ...(org?.member ? { member: org.member } : {}),
    available: nanos(big(locked.balance_nanos) - big(locked.reserved_nanos)),
    ...(locked.topup_pending !== null && locked.topup_pending !== undefined ? { topupUnderWay: true } : {}),
    reserved: nanos(big(locked.reserved_nanos)),
    accountSpendLimit: spendLimit,
    accountHour: windows.get(accountScope(account.id)) ?? [],
    key: {
      creditLimit: key.creditLimit,
      usdPerHour: key.usdPerHour,
      requestsPerHour: key.requestsPerHour,
      spent: nanos(big(open?.spent)),
      open: { amount: nanos(big(open?.open_amount)), requests: int(open?.open_requests) },
      hour: windows.get(keyScope(key.id)) ?? [],
    },
  };
}

/**
 * An organization's request, read under its account's lock: the concurrency limit is per
 * person (a member's keys share one, each organization key has its own), and a member with a
 * cap has what its keys settled today and hold now. A member removed since the key was looked
 * up has no membership (its key was revoked in the same transaction): null.
 */
function* readOrgShare(input: NewReservation): Work<{ inflight: number; member: ReservationSnapshot["member"] | null } | null> {
  const owner = input.key.ownerId ?? null;
  if (owner === null) {
    const open = yield* first("SELECT COUNT(*) AS n FROM reservations WHERE key_id = ?", input.key.id);
    return { inflight: int(open?.n), member: null };
  }
  const membership = yield* first("SELECT spend_cap_nanos_per_day AS cap FROM memberships WHERE org_id = ? AND user_id = ?", input.account.id, owner);
  if (!membership) return null;
  const open = yield* first(
    `SELECT COUNT(*) AS n, COALESCE(SUM(r.amount_nanos), 0) AS amount FROM reservations r JOIN api_keys k ON k.id = r.key_id
     WHERE r.account_id = ? AND k.owner_id = ?`,
    input.account.id, owner,
  );
  if (membership.cap === null) return { inflight: int(open?.n), member: null };
  const today = yield* first(
    "SELECT spend_nanos FROM usage_windows WHERE scope = ? AND minute = ?", memberScope(input.account.id, owner), dayMinuteOf(input.now),
  );
  return { inflight: int(open?.n), member: { cap: nanos(big(membership.cap)), committed: nanos(big(today?.spend_nanos) + big(open?.amount)) } };
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * `key.limit_reached` for the account's webhook, once per key, limit and clock hour however
 * many requests the limit refuses: the event's id is made of the three.
 */
function* tellLimitReached(input: NewReservation, limit: KeyLimit): Work<void> {
  const hour = Math.floor(input.now / HOUR_MS) * HOUR_MS;
  const data = { keyId: input.key.id, limit };
  yield* queueWebhookEvent(input.account.id, "key.limit_reached", data, input.now, `limit-${input.key.id}-${limit}-${hour}`);
}

/**
 * Reserves under the account row's lock, taken first by every reservation and settlement of
 * the account, so that nothing read here can change until the transaction ends (SQLite:
 * BEGIN IMMEDIATE). Admission is all this writes: the key's counters and hourly windows move
 * when the request ends, and until then its open reservation counts toward them.
 */
export function* reserve(dialect: Dialect, input: NewReservation): Work<ReservationOutcome> {
  if (dialect === "postgres") yield* exec(SET_ASYNC_COMMIT);
  const snapshot = yield* readSnapshot(dialect, input);
  if (!snapshot) return { ok: false, error: new AppError("authentication_error", "API key has been revoked") };
  const refusal = decideReservation(snapshot, input, input.policy, input.now);
  if (refusal) {
    const limit = keyLimitOf(refusal);
    if (limit) yield* tellLimitReached(input, limit);
    return { ok: false, error: refusal };
  }

  const reservationId = Bun.randomUUIDv7();
  yield* exec(
    `INSERT INTO reservations (id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    reservationId, input.account.id, input.key.id, input.model, input.requestedModel, input.amount, input.now, input.now + input.leaseMs,
  );
  yield* exec("UPDATE accounts SET reserved_nanos = reserved_nanos + ?, inflight = inflight + 1 WHERE id = ?", input.amount, input.account.id);
  return { ok: true, reservationId };
}
