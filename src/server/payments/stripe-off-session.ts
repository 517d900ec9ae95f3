import Stripe from "stripe";
import { OffSessionOutcomeUnknown, type OffSessionAnswer, type TopupProvider } from "../../core/checkout/auto-topup-run.ts";
import type { Logger } from "../log.ts";

/** What Stripe's PaymentIntent statuses mean for an off-session attempt: money on its way, or nothing without the customer. */
const SUBMITTED = new Set(["succeeded", "processing"]);

/**
 * Stripe's off-session charge of a saved card: a PaymentIntent created with the customer and
 * payment method, `off_session: true` and `confirm: true`
 * (https://docs.stripe.com/payments/save-and-reuse?platform=web&ui=stripe-hosted#charge-saved-payment-method).
 * A decline (`card_declined`) or a bank's request for authentication (`authentication_required`)
 * is Stripe's 402 card error, carrying the PaymentIntent; a `requires_action` answer is a
 * refusal too, since the customer is not there to act. Other failures are thrown.
 */
export function stripeOffSession(stripe: Stripe, log: Logger): TopupProvider {
  return {
    async chargeOffSession(input): Promise<OffSessionAnswer> {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: Number(input.amountCents), currency: "usd", customer: input.customerId, payment_method: input.paymentMethodId,
            off_session: true, confirm: true, metadata: input.metadata,
          },
          { idempotencyKey: input.idempotencyKey },
        );
        if (SUBMITTED.has(intent.status)) return { status: "submitted", paymentIntentId: intent.id };
        return { status: "refused", paymentIntentId: intent.id, reason: intent.status };
      } catch (error) {
        if (error instanceof Stripe.errors.StripeCardError) {
          return { status: "refused", paymentIntentId: error.payment_intent?.id ?? null, reason: error.code ?? "card_declined" };
        }
        log.error("stripe off-session payment failed", { error, customerId: input.customerId });
        // No status (the connection broke or timed out), Stripe's 5xx, or a 409 (the same
        // idempotency key in use): whether the PaymentIntent exists is not known.
        const status = error instanceof Stripe.errors.StripeError ? error.statusCode : undefined;
        if (status === undefined || status >= 500 || status === 409) {
          throw new OffSessionOutcomeUnknown(`Stripe's answer was lost: ${(error as Error).message}`);
        }
        throw error;
      }
    },
  };
}
