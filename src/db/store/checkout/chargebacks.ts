import { creditsShare, type ChargeOutcome, type ChargebackStore } from "../../../core/checkout/chargebacks.ts";
import { CREDIT_PACKS, isPackId } from "../../../core/checkout/packs.ts";
import { formatUsd, nanos, type Nanos } from "../../../core/money.ts";
import type { Database } from "../../database.ts";
import type { Dialect } from "../../migration-files.ts";
import { big, exec, first, type Work } from "../../sql.ts";
import { appendLedger } from "../accounts/records.ts";
import { recordEvent } from "./events.ts";

type RefundInput = Parameters<ChargebackStore["recordRefund"]>[0];
type DisputeInput = Parameters<ChargebackStore["recordDispute"]>[0];

interface PaidPurchase {
  id: string;
  accountId: string;
  credits: Nanos;
  paidCents: bigint;
  refundedCents: bigint;
  refundedCredits: Nanos;
}

const NOTHING = (reason: "duplicate" | "unknown_payment" | "no_change"): ChargeOutcome => ({ applied: false, reason });
const usdOfCents = (cents: bigint) => formatUsd(nanos(cents * 10_000_000n), 2);

/**
 * The paid purchase of a payment intent, its row locked (Postgres; SQLite's transaction holds
 * the write lock already) so that two events about one payment, on any instances, apply one
 * after the other and each reads what the other wrote.
 */
function* paidPurchase(dialect: Dialect, paymentIntentId: string): Work<PaidPurchase | null> {
  const row = yield* first(
    `SELECT id, account_id, pack_id, credits_nanos, amount_paid_cents, refunded_cents, refunded_nanos FROM checkout_sessions
     WHERE payment_intent_id = ? AND status = 'paid'${dialect === "postgres" ? " FOR UPDATE" : ""}`,
    paymentIntentId,
  );
  if (!row) return null;
  const packId = row.pack_id as string;
  // A session paid before the amount was recorded paid its pack's price.
  const listed = isPackId(packId) ? BigInt(CREDIT_PACKS[packId].priceUsd) * 100n : 0n;
  return {
    id: row.id as string, accountId: row.account_id as string, credits: nanos(big(row.credits_nanos)),
    paidCents: row.amount_paid_cents === null ? listed : big(row.amount_paid_cents),
    refundedCents: big(row.refunded_cents), refundedCredits: nanos(big(row.refunded_nanos)),
  };
}

function* recordRefund(dialect: Dialect, input: RefundInput): Work<ChargeOutcome> {
  if (!(yield* recordEvent(input.eventId, input.eventType, input.now))) return NOTHING("duplicate");
  const purchase = yield* paidPurchase(dialect, input.paymentIntentId);
  if (!purchase) return NOTHING("unknown_payment");
  // `amount_refunded` is the charge's total so far: an event older than one already applied
  // (deliveries come in any order) carries a smaller total and adds nothing.
  if (input.refundedCents <= purchase.refundedCents) return NOTHING("no_change");
  const total = creditsShare(purchase.credits, input.refundedCents, input.amountCents);
  const take = nanos(total - purchase.refundedCredits);
  yield* exec("UPDATE checkout_sessions SET refunded_cents = ?, refunded_nanos = ? WHERE id = ?", input.refundedCents, total, purchase.id);
  if (take <= 0n) return NOTHING("no_change");
  const entry = yield* appendLedger({
    accountId: purchase.accountId, amount: nanos(-take), kind: "refund", idempotencyKey: `refund:${input.eventId}`, now: input.now,
    note: `refund of ${usdOfCents(input.refundedCents - purchase.refundedCents)} USD, checkout ${purchase.id}`,
  });
  if (!entry) return NOTHING("duplicate");
  return { applied: true, accountId: purchase.accountId, sessionId: purchase.id, amount: nanos(-take), balance: entry.balance };
}

/**
 * The dispute's hold, taken now if no event of this dispute took it before: a `closed`
 * delivered before its `created` takes it too, so that a win gives back exactly what was held
 * and the late `created` finds it taken. What earlier refunds took back is not held again.
 */
function* disputeHold(purchase: PaidPurchase, input: DisputeInput): Work<{ held: Nanos; balance: Nanos | null }> {
  const key = `dispute_hold:${input.disputeId}`;
  const taken = yield* first("SELECT amount_nanos FROM ledger_entries WHERE idempotency_key = ?", key);
  if (taken) return { held: nanos(-big(taken.amount_nanos)), balance: null };
  const share = creditsShare(purchase.credits, input.disputedCents, purchase.paidCents);
  const unrefunded = purchase.credits - purchase.refundedCredits;
  const held = nanos(share < unrefunded ? share : unrefunded);
  if (held <= 0n) return { held: nanos(0), balance: null };
  const entry = yield* appendLedger({
    accountId: purchase.accountId, amount: nanos(-held), kind: "dispute_hold", idempotencyKey: key, now: input.now,
    note: `dispute ${input.disputeId} of ${usdOfCents(input.disputedCents)} USD, checkout ${purchase.id}`,
  });
  return { held, balance: entry?.balance ?? null };
}

function* recordDispute(dialect: Dialect, input: DisputeInput): Work<ChargeOutcome> {
  if (!(yield* recordEvent(input.eventId, input.eventType, input.now))) return NOTHING("duplicate");
  const purchase = yield* paidPurchase(dialect, input.paymentIntentId);
  if (!purchase) return NOTHING("unknown_payment");
  const hold = yield* disputeHold(purchase, input);
  let moved = hold.balance === null ? nanos(0) : nanos(-hold.held);
  let balance = hold.balance;
  if (input.status === "won" && hold.held > 0n) {
    const entry = yield* appendLedger({
      accountId: purchase.accountId, amount: hold.held, kind: "dispute_release", idempotencyKey: `dispute_release:${input.disputeId}`,
      now: input.now, note: `dispute ${input.disputeId} won, checkout ${purchase.id}`,
    });
    if (entry) [moved, balance] = [nanos(moved + hold.held), entry.balance];
  }
  // A closed dispute's outcome is final: a `created` delivered after it does not reopen it.
  const unlessClosed = input.status === "open" ? " AND dispute_status IS NULL" : "";
  yield* exec(`UPDATE checkout_sessions SET disputed_cents = ?, dispute_status = ? WHERE id = ?${unlessClosed}`, input.disputedCents, input.status, purchase.id);
  if (balance === null) return NOTHING("no_change");
  return { applied: true, accountId: purchase.accountId, sessionId: purchase.id, amount: moved, balance };
}

export const chargebackStore = (db: Database): ChargebackStore => ({
  recordRefund: (input) => db.transaction(recordRefund(db.dialect, input)),
  recordDispute: (input) => db.transaction(recordDispute(db.dialect, input)),
});
