import { CHECKOUT_OPEN_MS } from "../../../core/checkout/sessions.ts";
import { CREDIT_PACKS } from "../../../core/checkout/packs.ts";
import type { TopupEvent, TopupEventStore, TopupFailure, TopupMetadata, TopupPaymentOutcome } from "../../../core/checkout/topup-events.ts";
import { packPriceCents } from "../../../core/checkout/auto-topup.ts";
import type { Database } from "../../database.ts";
import type { Dialect } from "../../migration-files.ts";
import { exec, first, type Work } from "../../sql.ts";
import { appendLedger } from "../accounts/records.ts";
import { queueAccountMail } from "../alerts.ts";
import { recordEvent } from "./events.ts";

type Paid = Extract<TopupEvent, { kind: "topup_paid" }> & { now: number };

/**
 * The attempt's purchase under the PaymentIntent's id, locked (Postgres) so that Stripe's answer
 * and its events, on any instances, apply one after the other. Recorded before Stripe named it
 * (its hold id), it takes the PaymentIntent's id now; unknown (its record lost), it is recorded
 * from the PaymentIntent's metadata. Null when the account is gone.
 */
function* topupPurchase(dialect: Dialect, paymentIntentId: string | null, topup: TopupMetadata, now: number): Work<{ id: string; status: string } | null> {
  const lock = dialect === "postgres" ? " FOR UPDATE" : "";
  const id = paymentIntentId ?? topup.holdId;
  const found = yield* first(`SELECT id, status FROM checkout_sessions WHERE id IN (?, ?) ORDER BY id${lock}`, id, topup.holdId);
  if (found) {
    if (found.id !== id) yield* exec("UPDATE checkout_sessions SET id = ?, payment_intent_id = ? WHERE id = ?", id, paymentIntentId, found.id);
    return { id, status: found.status as string };
  }
  if (!(yield* first("SELECT id FROM accounts WHERE id = ?", topup.accountId))) return null;
  yield* exec(
    `INSERT INTO checkout_sessions (id, account_id, pack_id, credits_nanos, status, created_at, expires_at, amount_paid_cents, auto_topup, payment_intent_id)
     VALUES (?, ?, ?, ?, 'open', ?, ?, ?, 1, ?) ON CONFLICT (id) DO NOTHING`,
    id, topup.accountId, topup.packId, CREDIT_PACKS[topup.packId].credits, now, now + CHECKOUT_OPEN_MS, packPriceCents(topup.packId), paymentIntentId,
  );
  return { id, status: "open" };
}

/** The attempt is over: another may be claimed. */
function* freeClaim(accountId: string): Work<void> {
  yield* exec("UPDATE auto_topups SET pending_since = NULL WHERE account_id = ?", accountId);
}

function* recordTopupPayment(dialect: Dialect, input: Paid): Work<TopupPaymentOutcome> {
  if (!(yield* recordEvent(input.eventId, input.eventType, input.now))) return { credited: false, reason: "duplicate" };
  const { topup } = input;
  const purchase = yield* topupPurchase(dialect, input.paymentIntentId, topup, input.now);
  if (!purchase) return { credited: false, reason: "unknown_account" };
  const credits = CREDIT_PACKS[topup.packId].credits;
  // Keyed by the PaymentIntent: two events, or two instances, for one payment credit once.
  const credited = yield* appendLedger({
    accountId: topup.accountId, amount: credits, kind: "purchase",
    note: `${topup.packId} pack, automatic top-up ${input.paymentIntentId}`, idempotencyKey: input.paymentIntentId, now: input.now,
  });
  // Paid even when it was marked failed first: the money arrived, so the credits do.
  yield* exec(
    `UPDATE checkout_sessions SET status = 'paid', paid_at = COALESCE(paid_at, ?), payment_intent_id = ?,
       amount_paid_cents = COALESCE(?, amount_paid_cents) WHERE id = ?`,
    input.now, input.paymentIntentId, input.amountCents, purchase.id,
  );
  if (purchase.status === "open") yield* freeClaim(topup.accountId);
  if (!credited) return { credited: false, reason: "duplicate" };
  return { credited: true, accountId: topup.accountId, credits, balance: credited.balance };
}

function* failTopup(dialect: Dialect, input: TopupFailure): Work<{ turnedOff: boolean }> {
  if (input.eventId !== null && !(yield* recordEvent(input.eventId, input.eventType ?? "", input.now))) return { turnedOff: false };
  const purchase = yield* topupPurchase(dialect, input.paymentIntentId, input.topup, input.now);
  // Only the first word of failure about a still-open attempt acts: a paid one stays paid.
  if (!purchase || purchase.status !== "open") return { turnedOff: false };
  yield* exec("UPDATE checkout_sessions SET status = 'failed' WHERE id = ?", purchase.id);
  // Off, and the refused card forgotten: turning it on again saves the card of the next purchase.
  yield* exec(
    `UPDATE auto_topups SET enabled = 0, pending_since = NULL, payment_method_id = NULL, card_brand = NULL, card_last4 = NULL
     WHERE account_id = ?`,
    input.topup.accountId,
  );
  const account = yield* first("SELECT email FROM accounts WHERE id = ?", input.topup.accountId);
  if (account) yield* queueAccountMail(input.topup.accountId, account.email as string, input.mail, input.now);
  return { turnedOff: true };
}

export const topupEventStore = (db: Database): TopupEventStore => ({
  recordTopupPayment: (input) => db.transaction(recordTopupPayment(db.dialect, input)),
  failTopup: (input) => db.transaction(failTopup(db.dialect, input)),
});
