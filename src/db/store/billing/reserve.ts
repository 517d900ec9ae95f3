import { nanos } from "../../../core/money.ts";
import { decideReservation, type HourWindow, type ReservationSnapshot } from "../../../core/reservation.ts";
import type { NewReservation, ReservationOutcome } from "../../../core/store.ts";
import type { Dialect } from "../../migration-files.ts";
import { big, exec, first, int, type Work } from "../../sql.ts";
import { accountScope, EMPTY_WINDOW, hourWindows, keyScope } from "./windows.ts";

export const hasKeyLimits = (key: NewReservation["key"]) =>
  key.creditLimit !== null || key.usdPerHour !== null || key.requestsPerHour !== null;

/** What `decideReservation` needs, read after the account row's lock is taken. */
function* readSnapshot(dialect: Dialect, input: NewReservation): Work<ReservationSnapshot> {
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
  return {
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
  };
}

/**
 * Reserves under the account row's lock, taken first by every reservation and settlement of
 * the account, so that nothing read here can change until the transaction ends (SQLite:
 * BEGIN IMMEDIATE). Admission is all this writes: the key's counters and hourly windows move
 * when the request ends, and until then its open reservation counts toward them.
 */
export function* reserve(dialect: Dialect, input: NewReservation): Work<ReservationOutcome> {
  const snapshot = yield* readSnapshot(dialect, input);
  const refusal = decideReservation(snapshot, input.amount, input.policy, input.now);
  if (refusal) return { ok: false, error: refusal };

  const reservationId = Bun.randomUUIDv7();
  yield* exec(
    `INSERT INTO reservations (id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    reservationId, input.account.id, input.key.id, input.model, input.requestedModel, input.amount, input.now, input.now + input.leaseMs,
  );
  yield* exec("UPDATE accounts SET reserved_nanos = reserved_nanos + ?, inflight = inflight + 1 WHERE id = ?", input.amount, input.account.id);
  return { ok: true, reservationId };
}
