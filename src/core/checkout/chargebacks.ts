import type { Nanos } from "../money.ts";
import type { ProviderEvent } from "./events.ts";

// Money going back after a purchase: Stripe's refunds and disputes (chargebacks) of a paid
// Checkout Session's payment, followed in the ledger exactly once per event.

interface EventBase {
  eventId: string;
  eventType: string;
  /** The payment refunded or disputed: what the gateway recorded when the session was paid. */
  paymentIntentId: string;
}

/** What a refund or dispute event asks of the gateway. */
export type ChargeEvent =
  | (EventBase & { kind: "refunded"; amountCents: bigint; refundedCents: bigint })
  | (EventBase & { kind: "dispute"; disputeId: string; disputedCents: bigint; status: "open" | "won" | "lost" });

/** How a charge event moved the ledger: by `amount` (negative takes back), or not at all and why. */
export type ChargeOutcome =
  | { applied: true; accountId: string; sessionId: string; amount: Nanos; balance: Nanos }
  | { applied: false; reason: "duplicate" | "unknown_payment" | "no_change" };

export interface ChargebackStore {
  /**
   * Takes back the refunded share of the purchase paid by the payment intent: the share of the
   * cumulative `refundedCents` less what earlier refunds took back, as one `refund` entry, and
   * records the event, in one transaction. A repeated event, or an older one carrying a smaller
   * total, takes nothing.
   */
  recordRefund(input: Extract<ChargeEvent, { kind: "refunded" }> & { now: number }): Promise<ChargeOutcome>;
  /**
   * Holds the disputed purchase's credits (`dispute_hold`), whichever of the dispute's events
   * comes first; gives them back (`dispute_release`) when it is won; records the event.
   */
  recordDispute(input: Extract<ChargeEvent, { kind: "dispute" }> & { now: number }): Promise<ChargeOutcome>;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};

/** A non-negative whole number of cents as Stripe sends it, or null. */
const cents = (value: unknown): bigint | null =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;

/** How a closed dispute ended for the gateway: `warning_closed` (an inquiry that went no further) counts as won. */
const CLOSED_OUTCOMES: Record<string, "won" | "lost"> = { won: "won", warning_closed: "won", lost: "lost" };

function readRefund(event: ProviderEvent, charge: Record<string, unknown>): ChargeEvent | null {
  const amountCents = cents(charge.amount);
  const refundedCents = cents(charge.amount_refunded);
  if (typeof charge.payment_intent !== "string" || amountCents === null || refundedCents === null) return null;
  return { kind: "refunded", eventId: event.id, eventType: event.type, paymentIntentId: charge.payment_intent, amountCents, refundedCents };
}

function readDispute(event: ProviderEvent, dispute: Record<string, unknown>): ChargeEvent | null {
  const disputedCents = cents(dispute.amount);
  // Every Checkout payment is a PaymentIntent's, so its disputes name it.
  if (typeof dispute.id !== "string" || typeof dispute.payment_intent !== "string" || disputedCents === null) return null;
  const base = { kind: "dispute" as const, eventId: event.id, eventType: event.type, paymentIntentId: dispute.payment_intent, disputeId: dispute.id, disputedCents };
  if (event.type === "charge.dispute.created") return { ...base, status: "open" };
  const outcome = CLOSED_OUTCOMES[String(dispute.status)];
  return outcome === undefined ? null : { ...base, status: outcome };
}

/**
 * Reads a verified Stripe refund or dispute event: `charge.refunded` (a Charge, whose
 * `amount_refunded` is the total refunded so far), `charge.dispute.created` and
 * `charge.dispute.closed` (a Dispute). Null for any other event, or one missing what is needed.
 */
export function readChargeEvent(event: ProviderEvent): ChargeEvent | null {
  const object = record(event.data.object);
  if (event.type === "charge.refunded" && object.object === "charge") return readRefund(event, object);
  if ((event.type === "charge.dispute.created" || event.type === "charge.dispute.closed") && object.object === "dispute") {
    return readDispute(event, object);
  }
  return null;
}

/** Applies a refund or dispute event to the ledger. */
export function applyChargeEvent(store: ChargebackStore, event: ChargeEvent, now: number): Promise<ChargeOutcome> {
  return event.kind === "refunded" ? store.recordRefund({ ...event, now }) : store.recordDispute({ ...event, now });
}

/**
 * The credits that `partCents` of a `wholeCents` payment bought: credits × part / whole, rounded
 * down, in the customer's favour (at most one nano-USD). Computed from cumulative totals, never
 * summed from per-refund shares, so successive partial refunds never drift: a full refund takes
 * back exactly the purchase's credits.
 */
export function creditsShare(credits: Nanos, partCents: bigint, wholeCents: bigint): Nanos {
  if (wholeCents <= 0n || partCents <= 0n) return 0n as Nanos;
  const part = partCents > wholeCents ? wholeCents : partCents;
  return ((credits * part) / wholeCents) as Nanos;
}
