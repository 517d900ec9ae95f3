import Stripe from "stripe";
import type { Config } from "../../config.ts";
import type { RefundProvider } from "../../core/checkout/refunds.ts";
import type { CheckoutProvider, NewHostedCheckout } from "../../core/checkout/sessions.ts";
import { AppError } from "../../core/errors.ts";
import type { Logger } from "../log.ts";

/** Retries of a failed API call; the idempotency key makes them create one session. */
const STRIPE_RETRIES = 2;
const STRIPE_TIMEOUT_MS = 30_000;

/** Where the client sends requests: Stripe's API, or `STRIPE_API_BASE` (scheme, host and port only). */
function apiAddress(apiBase: string | undefined): Pick<Stripe.StripeConfig, "protocol" | "host" | "port"> {
  if (apiBase === undefined) return {};
  const url = new URL(apiBase);
  const protocol = url.protocol === "http:" ? "http" : "https";
  return { protocol, host: url.hostname, port: Number(url.port || (protocol === "https" ? 443 : 80)) };
}

/** The Stripe API client, or null when `STRIPE_SECRET_KEY` is not set. */
export function stripeClient(config: Config["stripe"]): Stripe | null {
  if (config.secretKey === undefined) return null;
  return new Stripe(config.secretKey, {
    maxNetworkRetries: STRIPE_RETRIES,
    timeout: STRIPE_TIMEOUT_MS,
    telemetry: false,
    ...apiAddress(config.apiBase),
  });
}

/** What a payment's latest charge tells: its receipt, and the card that paid (kept for automatic top-up). */
export interface PaymentDetails {
  receiptUrl: string | null;
  paymentMethodId: string | null;
  card: { brand: string | null; last4: string | null };
}

/**
 * A PaymentIntent's receipt and card: its latest charge carries the receipt link, the payment
 * method and the card's brand and last four digits
 * (https://docs.stripe.com/api/charges/object#charge_object-payment_method_details-card).
 */
export async function paymentDetails(stripe: Stripe, paymentIntentId: string): Promise<PaymentDetails> {
  const intent = await stripe.paymentIntents.retrieve(paymentIntentId, { expand: ["latest_charge"] });
  const charge = typeof intent.latest_charge === "object" && intent.latest_charge !== null ? intent.latest_charge : null;
  const method = charge?.payment_method ?? (typeof intent.payment_method === "string" ? intent.payment_method : null);
  const card = charge?.payment_method_details?.card;
  return { receiptUrl: charge?.receipt_url ?? null, paymentMethodId: method, card: { brand: card?.brand ?? null, last4: card?.last4 ?? null } };
}

/** The hosted page of an invoice Checkout issued (STRIPE_INVOICES=on); null until Stripe finalizes it. */
export async function hostedInvoiceUrl(stripe: Stripe, invoiceId: string): Promise<string | null> {
  return (await stripe.invoices.retrieve(invoiceId)).hosted_invoice_url ?? null;
}

/**
 * STRIPE_INVOICES=on: the billing address required, tax IDs collected and an invoice issued
 * for the payment (https://docs.stripe.com/payments/checkout/receipts and
 * https://docs.stripe.com/tax/checkout/tax-ids).
 */
const INVOICING = {
  billing_address_collection: "required",
  tax_id_collection: { enabled: true },
  invoice_creation: { enabled: true },
} as const satisfies Partial<Stripe.Checkout.SessionCreateParams>;

/**
 * The card kept for automatic top-up: Checkout saves it to a customer for off-session use
 * (https://docs.stripe.com/payments/checkout/save-during-payment), the account's customer when it
 * has one (Stripe then wants leave to update its name and address from what Checkout collects
 * for an invoice), else a new one.
 */
function cardSaving(saveCard: NewHostedCheckout["saveCard"], invoices: boolean): Partial<Stripe.Checkout.SessionCreateParams> {
  if (saveCard === null) return {};
  const customer: Partial<Stripe.Checkout.SessionCreateParams> = saveCard.customerId === null
    ? { customer_creation: "always" }
    : { customer: saveCard.customerId, ...(invoices ? { customer_update: { name: "auto", address: "auto" } } : {}) };
  return { ...customer, payment_intent_data: { setup_future_usage: "off_session" } };
}

/** Stripe Checkout as core's checkout provider: one payment-mode session per pack purchase. */
export function stripeCheckout(stripe: Stripe, log: Logger): CheckoutProvider {
  return {
    async createSession(input) {
      try {
        const session = await stripe.checkout.sessions.create(
          {
            mode: "payment",
            line_items: [{ price: input.priceId, quantity: 1 }],
            client_reference_id: input.accountId,
            metadata: { accountId: input.accountId, packId: input.packId, ...(input.saveCard ? { saveCard: "1" } : {}) },
            success_url: input.successUrl,
            cancel_url: input.cancelUrl,
            ...cardSaving(input.saveCard, input.invoices),
            ...(input.invoices ? INVOICING : {}),
          },
          { idempotencyKey: input.idempotencyKey },
        );
        if (!session.url) throw new Error(`Stripe answered session ${session.id} without a url`);
        return { id: session.id, url: session.url, expiresAt: session.expires_at ? session.expires_at * 1000 : null };
      } catch (error) {
        // The buyer sees the spec's generic 500; the operator needs Stripe's reason.
        log.error("stripe checkout session failed", { error, accountId: input.accountId, packId: input.packId });
        throw error;
      }
    },
    /**
     * `POST /v1/checkout/sessions/{id}/expire` (https://docs.stripe.com/api/checkout/sessions/expire):
     * only an open session expires; any other is Stripe's 400 invalid_request_error, and then
     * the session is read back to learn what it is (expired, or complete: paid or being paid).
     */
    async expireSession(id) {
      try {
        const session = await stripe.checkout.sessions.expire(id).catch((error: unknown) => {
          if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
          return stripe.checkout.sessions.retrieve(id);
        });
        const status: string | null = session.status;
        return status === "complete" ? "complete" : status === "expired" ? "expired" : "open";
      } catch (error) {
        // The buyer is told Stripe failed; the operator needs Stripe's reason.
        log.error("stripe checkout session expiry failed", { error, sessionId: id });
        throw error;
      }
    },
  };
}

/**
 * Stripe's refund API as core's refund provider: `POST /v1/refunds` for the purchase's
 * PaymentIntent and an amount in cents. Stripe's refusal (already refunded, a disputed
 * charge…) is the operator's to read: it is passed on as a 502 with Stripe's message.
 */
export function stripeRefunds(stripe: Stripe, log: Logger): RefundProvider {
  return {
    async refund(input) {
      try {
        const refund = await stripe.refunds.create(
          { payment_intent: input.paymentIntentId, amount: Number(input.amountCents) },
          { idempotencyKey: input.idempotencyKey },
        );
        return { id: refund.id, status: refund.status ?? "pending" };
      } catch (error) {
        log.error("stripe refund failed", { error, paymentIntentId: input.paymentIntentId });
        throw new AppError("provider_error", `Stripe refused the refund: ${(error as Error).message}`);
      }
    },
  };
}
