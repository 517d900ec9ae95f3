import type { Nanos } from "../money.ts";
import { CREDIT_PACKS, isPackId } from "./packs.ts";

/** A verified provider event, as much of it as the gateway reads. */
export interface ProviderEvent {
  id: string;
  type: string;
  data: { object: unknown };
}

/** The pack a session was opened for, from its metadata, for a session the gateway has no record of. */
export interface SessionFallback {
  accountId: string;
  packId: string;
  credits: Nanos;
}

/** What an event asks of the gateway. */
type CheckoutEvent =
  | { kind: "paid"; eventId: string; eventType: string; sessionId: string; fallback: SessionFallback | null; payment: PaidWith }
  | { kind: "closed"; eventId: string; eventType: string; sessionId: string; status: "expired" | "failed" }
  | { kind: "ignored" };

/**
 * The payment of a paid session, kept for its refunds and disputes: they name its PaymentIntent,
 * and a refund's share of the credits is a share of the amount paid (cents). Null when absent.
 */
export interface PaidWith {
  paymentIntentId: string | null;
  amountCents: bigint | null;
}

export interface CheckoutPayment {
  eventId: string;
  eventType: string;
  sessionId: string;
  fallback: SessionFallback | null;
  /** Absent: nothing known of the payment (kept null). */
  payment?: PaidWith;
  now: number;
}

export type PaymentOutcome =
  | { credited: true; accountId: string; credits: Nanos; balance: Nanos }
  | { credited: false; reason: "duplicate" | "unknown_session" };

export interface CheckoutEventStore {
  /**
   * Credits the session's pack as a purchase keyed by the session id, marks the session paid
   * and records the event, in one transaction: a replayed or concurrent event, or a second
   * event type for the same session, credits nothing more.
   */
  recordCheckoutPayment(input: CheckoutPayment): Promise<PaymentOutcome>;
  /** Closes a still-open session (it no longer holds capacity) and records the event. */
  closeCheckout(input: { eventId: string; eventType: string; sessionId: string; status: "expired" | "failed"; now: number }): Promise<void>;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};

/**
 * The gateway's own metadata on the session, for when its record is missing (the process
 * stopped between creating the session and recording it). The event is verified, and only the
 * gateway writes this metadata, so it can be trusted; the amount still comes from the pack.
 */
function fallbackOf(session: Record<string, unknown>): SessionFallback | null {
  const metadata = record(session.metadata);
  const { accountId, packId } = metadata;
  if (typeof accountId !== "string" || accountId === "" || !isPackId(packId)) return null;
  return { accountId, packId, credits: CREDIT_PACKS[packId].credits };
}

function paidWith(session: Record<string, unknown>): PaidWith {
  const { payment_intent: intent, amount_total: amount } = session;
  return {
    paymentIntentId: typeof intent === "string" && intent !== "" ? intent : null,
    amountCents: typeof amount === "number" && Number.isSafeInteger(amount) && amount > 0 ? BigInt(amount) : null,
  };
}

/**
 * Reads a verified Stripe event. A completed session credits when its payment status is
 * `paid`; one paid later by a delayed method (bank debit) credits on
 * `checkout.session.async_payment_succeeded`. Amounts in the event are never read.
 */
export function readCheckoutEvent(event: ProviderEvent): CheckoutEvent {
  const session = record(event.data.object);
  const sessionId = session.id;
  if (typeof sessionId !== "string" || session.object !== "checkout.session") return { kind: "ignored" };
  const base = { eventId: event.id, eventType: event.type, sessionId };
  switch (event.type) {
    case "checkout.session.completed":
      return session.payment_status === "paid" ? { kind: "paid", ...base, fallback: fallbackOf(session), payment: paidWith(session) } : { kind: "ignored" };
    case "checkout.session.async_payment_succeeded":
      return { kind: "paid", ...base, fallback: fallbackOf(session), payment: paidWith(session) };
    case "checkout.session.expired":
      return { kind: "closed", ...base, status: "expired" };
    case "checkout.session.async_payment_failed":
      return { kind: "closed", ...base, status: "failed" };
    default:
      return { kind: "ignored" };
  }
}

type EventResult = PaymentOutcome | { closed: true } | { ignored: true };

/** Applies what the event asks for; events the gateway does not act on are acknowledged and ignored. */
export async function applyCheckoutEvent(store: CheckoutEventStore, event: CheckoutEvent, now: number): Promise<EventResult> {
  switch (event.kind) {
    case "paid":
      return store.recordCheckoutPayment({ ...event, now });
    case "closed":
      await store.closeCheckout({ ...event, now });
      return { closed: true };
    case "ignored":
      return { ignored: true };
  }
}
