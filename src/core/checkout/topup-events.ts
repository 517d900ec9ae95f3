import type { Nanos } from "../money.ts";
import type { ProviderEvent } from "./events.ts";
import { isPackId, type PackId } from "./packs.ts";

// Stripe's word on an automatic top-up's off-session PaymentIntent: `payment_intent.succeeded`
// credits it, `payment_intent.payment_failed` turns automatic top-up off. Only PaymentIntents
// the gateway made for a top-up carry its metadata; a Checkout payment's PaymentIntent does not,
// and its events are left to the Checkout Session's.

/** What the gateway wrote on the PaymentIntent, trusted because the event is verified and only the gateway writes it. */
export interface TopupMetadata {
  accountId: string;
  packId: PackId;
  /** The open purchase recorded when the attempt was claimed, before Stripe named the PaymentIntent. */
  holdId: string;
}

export type TopupEvent =
  | { kind: "topup_paid"; eventId: string; eventType: string; paymentIntentId: string; amountCents: bigint | null; topup: TopupMetadata }
  | { kind: "topup_failed"; eventId: string; eventType: string; paymentIntentId: string; reason: string; topup: TopupMetadata };

/** Why an attempt failed and the mail that says so: what `failTopup` records. */
export interface TopupFailure {
  /** The event that said so; null when it was Stripe's answer to the request. */
  eventId: string | null;
  eventType: string | null;
  paymentIntentId: string | null;
  topup: TopupMetadata;
  reason: string;
  mail: { subject: string; text: string };
  now: number;
}

export type TopupPaymentOutcome =
  | { credited: true; accountId: string; credits: Nanos; balance: Nanos }
  | { credited: false; reason: "duplicate" | "unknown_account" };

export interface TopupEventStore {
  /**
   * Credits the pack as a purchase keyed by the PaymentIntent id (`pi_…`, the purchase's id from
   * then on), marks it paid, frees the claim and records the event, in one transaction: a
   * replayed or concurrent event credits nothing more.
   */
  recordTopupPayment(input: Extract<TopupEvent, { kind: "topup_paid" }> & { now: number }): Promise<TopupPaymentOutcome>;
  /**
   * Marks a still-open attempt failed, and only then turns automatic top-up off, frees the
   * claim and queues the mail, in one transaction (recording the event, if any): Stripe's
   * answer and its `payment_intent.payment_failed` for one attempt send one mail between them.
   */
  failTopup(input: TopupFailure): Promise<{ turnedOff: boolean }>;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};

/** The metadata the gateway puts on a top-up's PaymentIntent (auto-topup-run.ts). */
export const topupMetadata = (topup: TopupMetadata): Record<string, string> => ({
  autoTopup: topup.holdId, accountId: topup.accountId, packId: topup.packId,
});

function readMetadata(intent: Record<string, unknown>): TopupMetadata | null {
  const { autoTopup, accountId, packId } = record(intent.metadata);
  if (typeof autoTopup !== "string" || autoTopup === "" || typeof accountId !== "string" || accountId === "" || !isPackId(packId)) return null;
  return { holdId: autoTopup, accountId, packId };
}

/** Stripe's reason on a failed PaymentIntent (`last_payment_error.code`, e.g. `card_declined`). */
const failureReason = (intent: Record<string, unknown>): string => {
  const code = record(intent.last_payment_error).code;
  return typeof code === "string" && code !== "" ? code : "payment_failed";
};

/**
 * Reads a verified `payment_intent.succeeded` or `payment_intent.payment_failed` about a
 * top-up's PaymentIntent; null for every other event. The credits are the pack's, never the
 * event's amount; the amount paid is kept for refunds.
 */
export function readTopupEvent(event: ProviderEvent): TopupEvent | null {
  const intent = record(event.data.object);
  if (intent.object !== "payment_intent" || typeof intent.id !== "string") return null;
  const topup = readMetadata(intent);
  if (topup === null) return null;
  const base = { eventId: event.id, eventType: event.type, paymentIntentId: intent.id, topup };
  if (event.type === "payment_intent.succeeded") {
    const amount = intent.amount_received ?? intent.amount;
    const amountCents = typeof amount === "number" && Number.isSafeInteger(amount) && amount > 0 ? BigInt(amount) : null;
    return { kind: "topup_paid", ...base, amountCents };
  }
  if (event.type === "payment_intent.payment_failed") return { kind: "topup_failed", ...base, reason: failureReason(intent) };
  return null;
}

/** The one mail a failed top-up sends: what happened, and where to buy or set it up again. */
export function topupFailedMail(topUpUrl: string, reason: string): { subject: string; text: string } {
  const why = reason === "authentication_required" || reason === "requires_action"
    ? "your bank asked to confirm the payment, which cannot be done while you are away"
    : `the card was refused (${reason})`;
  return {
    subject: "Automatic top-up turned off",
    text: [
      `An automatic top-up could not be charged: ${why}.`,
      "Automatic top-up is now off, and no credits were added.",
      "",
      `Buy credits or turn automatic top-up on again with another card: ${topUpUrl}`,
    ].join("\n"),
  };
}
