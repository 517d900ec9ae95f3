import type Stripe from "stripe";
import type { ReceiptStore } from "../../core/checkout/sessions.ts";
import type { Logger } from "../log.ts";
import { receiptUrl } from "./stripe.ts";

/** The payment intent of a paid Checkout Session in a verified event, if it has one. */
export function paymentIntentOf(object: unknown): string | null {
  const intent = typeof object === "object" && object !== null ? (object as { payment_intent?: unknown }).payment_intent : null;
  return typeof intent === "string" && intent !== "" ? intent : null;
}

/**
 * Looks up and keeps the receipt of a paid session, in the background: the webhook answers
 * Stripe at once (Stripe retries slow deliveries), and a receipt that cannot be fetched only
 * leaves the dashboard without its link; the credits never depend on it.
 */
export function keepReceipt(stripe: Stripe | null, store: ReceiptStore, log: Logger, sessionId: string, intent: string | null): void {
  if (stripe === null || intent === null) return;
  void receiptUrl(stripe, intent)
    .then((url) => (url === null ? undefined : store.setReceiptUrl(sessionId, url)))
    .catch((error: unknown) => log.warn("stripe receipt lookup failed", { sessionId, error }));
}
