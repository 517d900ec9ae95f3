import type { CheckoutEventStore, CheckoutPayment, PaymentOutcome, SessionFallback } from "../../../core/checkout/events.ts";
import { nanos, type Nanos } from "../../../core/money.ts";
import type { Database } from "../../database.ts";
import { big, exec, first, type Work } from "../../sql.ts";
import { appendLedger } from "../accounts/records.ts";

/**
 * Records a provider event as processed; false when it was processed before. A concurrent
 * delivery of the same event waits on the primary key until the first commits, then finds it.
 */
export function* recordEvent(eventId: string, eventType: string, now: number): Work<boolean> {
  const inserted = yield* first(
    "INSERT INTO webhook_events (id, type, processed_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING id",
    eventId, eventType, now,
  );
  return inserted !== undefined;
}

/** The account and credits of a session: from its record, or else from its metadata (recorded now). */
function* sessionPurchase(
  sessionId: string,
  fallback: SessionFallback | null,
  now: number,
): Work<{ accountId: string; packId: string; credits: Nanos } | null> {
  const known = yield* first("SELECT account_id, pack_id, credits_nanos FROM checkout_sessions WHERE id = ?", sessionId);
  if (known) return { accountId: known.account_id as string, packId: known.pack_id as string, credits: nanos(big(known.credits_nanos)) };
  if (!fallback || !(yield* first("SELECT id FROM accounts WHERE id = ?", fallback.accountId))) return null;
  yield* exec(
    `INSERT INTO checkout_sessions (id, account_id, pack_id, credits_nanos, status, created_at, expires_at)
     VALUES (?, ?, ?, ?, 'open', ?, ?) ON CONFLICT (id) DO NOTHING`,
    sessionId, fallback.accountId, fallback.packId, fallback.credits, now, now,
  );
  return fallback;
}

function* recordCheckoutPayment(input: CheckoutPayment): Work<PaymentOutcome> {
  if (!(yield* recordEvent(input.eventId, input.eventType, input.now))) return { credited: false, reason: "duplicate" };
  const purchase = yield* sessionPurchase(input.sessionId, input.fallback, input.now);
  if (!purchase) return { credited: false, reason: "unknown_session" };
  // Keyed by the session, not the event: `completed` and `async_payment_succeeded` for one
  // session, or two deliveries racing, credit once.
  const credited = yield* appendLedger({
    accountId: purchase.accountId, amount: purchase.credits, kind: "purchase",
    note: `${purchase.packId} pack, checkout ${input.sessionId}`, idempotencyKey: input.sessionId, now: input.now,
  });
  yield* exec("UPDATE checkout_sessions SET status = 'paid', paid_at = ? WHERE id = ? AND status <> 'paid'", input.now, input.sessionId);
  // What its refunds and disputes will name and be a share of; the first paid event's word stands.
  yield* exec(
    `UPDATE checkout_sessions SET payment_intent_id = COALESCE(payment_intent_id, ?), amount_paid_cents = COALESCE(amount_paid_cents, ?)
     WHERE id = ?`,
    input.payment?.paymentIntentId ?? null, input.payment?.amountCents ?? null, input.sessionId,
  );
  if (!credited) return { credited: false, reason: "duplicate" };
  return { credited: true, accountId: purchase.accountId, credits: purchase.credits, balance: credited.balance };
}

function* closeCheckout(input: Parameters<CheckoutEventStore["closeCheckout"]>[0]): Work<void> {
  if (!(yield* recordEvent(input.eventId, input.eventType, input.now))) return;
  yield* exec("UPDATE checkout_sessions SET status = ? WHERE id = ? AND status = 'open'", input.status, input.sessionId);
}

export const checkoutEventStore = (db: Database): CheckoutEventStore => ({
  recordCheckoutPayment: (input) => db.transaction(recordCheckoutPayment(input)),
  closeCheckout: (input) => db.transaction(closeCheckout(input)),
});
