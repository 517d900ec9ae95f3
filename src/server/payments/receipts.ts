import type Stripe from "stripe";
import type { ReceiptStore } from "../../core/checkout/sessions.ts";
import type { Logger } from "../log.ts";
import { hostedInvoiceUrl, paymentDetails } from "./stripe.ts";

const field = (object: unknown, name: string): string | null => {
  const value = typeof object === "object" && object !== null ? (object as Record<string, unknown>)[name] : null;
  return typeof value === "string" && value !== "" ? value : null;
};

/** The payment intent of a paid Checkout Session in a verified event, if it has one. */
export const paymentIntentOf = (object: unknown): string | null => field(object, "payment_intent");

/** The invoice Checkout issued for a paid session (STRIPE_INVOICES=on), if any. */
export const invoiceOf = (object: unknown): string | null => field(object, "invoice");

/**
 * Looks up and keeps the receipt (and the invoice's page, when Checkout issued one) of a paid
 * purchase, in the background: the webhook answers Stripe at once (Stripe retries slow
 * deliveries), and a link that cannot be fetched only leaves the dashboard without it; the
 * credits never depend on it.
 */
export function keepReceipt(
  stripe: Stripe | null,
  store: ReceiptStore,
  log: Logger,
  purchase: { id: string; paymentIntentId: string | null; invoiceId?: string | null },
): void {
  if (stripe === null) return;
  const { id, paymentIntentId, invoiceId } = purchase;
  if (paymentIntentId !== null) {
    void paymentDetails(stripe, paymentIntentId)
      .then((details) => (details.receiptUrl === null ? undefined : store.setReceiptUrl(id, details.receiptUrl)))
      .catch((error: unknown) => log.warn("stripe receipt lookup failed", { purchaseId: id, error }));
  }
  if (invoiceId) {
    // The invoice is named even when its page cannot be fetched: the operator finds it in Stripe.
    void hostedInvoiceUrl(stripe, invoiceId)
      .catch((error: unknown) => {
        log.warn("stripe invoice lookup failed", { purchaseId: id, invoiceId, error });
        return null;
      })
      .then((url) => store.setInvoice(id, { id: invoiceId, url }))
      .catch((error: unknown) => log.warn("keeping the invoice failed", { purchaseId: id, error }));
  }
}
