import { nanos } from "../../../core/money.ts";
import type { Refusal, Release } from "../../../core/store.ts";
import { big, exec, first, type Work } from "../../sql.ts";
import { writeUsageLog, type Held } from "./usage-log.ts";
import { countEnded } from "./windows.ts";

/** A reservation as it was taken out of the table, by its settlement or its release. */
/** Deletes the reservation and returns it; null when it is gone (settled, released or swept). */
export function* takeReservation(id: string): Work<Held | null> {
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

export function* release(input: Release): Work<boolean> {
  const held = yield* takeReservation(input.reservationId);
  if (!held) return false;
  yield* exec(
    "UPDATE accounts SET reserved_nanos = reserved_nanos - ?, inflight = inflight - 1 WHERE id = ?",
    held.amount, held.accountId,
  );
  yield* countEnded(held, nanos(0), 1, input.now);
  yield* writeUsageLog({
    held, promptTokens: 0, completionTokens: 0, cost: nanos(0), latencyMs: input.latencyMs, status: input.refused ? "refused" : "error", error: input.reason,
    now: input.now,
  });
  return true;
}

/** A refused request's row, and one more request on its key; nothing was held, so nothing else moves. */
export function* recordRefusal(input: Refusal): Work<void> {
  yield* exec("UPDATE api_keys SET total_requests = total_requests + 1, last_used_at = ? WHERE id = ?", input.now, input.keyId);
  yield* writeUsageLog({
    held: { ...input, amount: nanos(0) }, promptTokens: 0, completionTokens: 0, cost: nanos(0), latencyMs: input.latencyMs,
    status: "refused", error: input.reason, now: input.now,
  });
}
