import Stripe from "stripe";
import type { Config } from "../../config.ts";
import type { RefundProvider } from "../../core/checkout/refunds.ts";
import type { CheckoutProvider } from "../../core/checkout/sessions.ts";
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

/**
 * Stripe's receipt link for a paid checkout session: its payment's latest charge carries it.
 * Null when the session has no payment intent (or Stripe gave no receipt).
 */
export async function receiptUrl(stripe: Stripe, paymentIntentId: string): Promise<string | null> {
  const intent = await stripe.paymentIntents.retrieve(paymentIntentId, { expand: ["latest_charge"] });
  const charge = intent.latest_charge;
  return typeof charge === "object" && charge !== null ? (charge.receipt_url ?? null) : null;
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
            metadata: { accountId: input.accountId, packId: input.packId },
            success_url: input.successUrl,
            cancel_url: input.cancelUrl,
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
