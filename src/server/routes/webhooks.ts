import { Elysia } from "elysia";
import { applyChargeEvent, readChargeEvent, type ChargeEvent } from "../../core/checkout/chargebacks.ts";
import { applyCheckoutEvent, readCheckoutEvent } from "../../core/checkout/events.ts";
import { formatUsd } from "../../core/money.ts";
import type { AppDeps } from "../deps.ts";
import { json, methodNotAllowed, plainError } from "../http.ts";
import type { AutoTopupWatch } from "../payments/auto-topup-watch.ts";
import { invoiceOf, keepReceipt, paymentIntentOf } from "../payments/receipts.ts";
import { stripeClient } from "../payments/stripe.ts";
import { verifiedStripeEvent } from "../payments/stripe-webhook.ts";
import { topupWebhook } from "../payments/topup-webhook.ts";

/**
 * `POST /webhooks/stripe`: Stripe's events, verified over the raw body. Paid checkouts and
 * automatic top-ups are credited, and refunds and disputes taken back or held, once however
 * often they are delivered; events the gateway does not act on are acknowledged with 200 so
 * that Stripe stops sending them.
 */
export const webhookRoutes = (deps: AppDeps, watch: AutoTopupWatch) => {
  const { config, store, log, now } = deps;
  const stripe = stripeClient(config.stripe);
  const topups = topupWebhook({ stripe, store, log, now, watch, dashboardUrl: config.dashboardUrl });
  /** A refund or dispute: the ledger follows it once; money going back is logged for the operator. */
  const applyCharge = async (event: ChargeEvent) => {
    const outcome = await applyChargeEvent(store, event, now());
    const about = { eventId: event.eventId, type: event.eventType, paymentIntentId: event.paymentIntentId };
    if (outcome.applied) {
      log.info("purchase credits moved", { ...about, accountId: outcome.accountId, sessionId: outcome.sessionId, amountUsd: formatUsd(outcome.amount, 9), balanceUsd: formatUsd(outcome.balance, 9) });
    } else if (outcome.reason === "unknown_payment") {
      // Not a payment of this gateway's checkouts (another product on the same Stripe account?).
      log.warn("refund or dispute of an unknown payment ignored", about);
    }
  };
  return new Elysia({ name: "webhooks" })
    .all("/webhooks/stripe", methodNotAllowed(plainError, "POST"))
    .post(
      "/webhooks/stripe",
      async ({ request }) => {
        const event = await verifiedStripeEvent(request, config.stripe.webhookSecret, now(), log);
        const chargeEvent = readChargeEvent(event);
        if (chargeEvent !== null) {
          await applyCharge(chargeEvent);
          return json({ received: true });
        }
        if (await topups.apply(event)) return json({ received: true });
        const checkoutEvent = readCheckoutEvent(event);
        const result = await applyCheckoutEvent(store, checkoutEvent, now());
        if (checkoutEvent.kind === "paid") await topups.saveCard(event.data.object);
        if ("credited" in result && result.credited) {
          log.info("checkout credited", { eventId: event.id, accountId: result.accountId, creditsUsd: formatUsd(result.credits, 9) });
          const session = event.data.object;
          if (checkoutEvent.kind === "paid") keepReceipt(stripe, store, log, { id: checkoutEvent.sessionId, paymentIntentId: paymentIntentOf(session), invoiceId: invoiceOf(session) });
        } else if ("reason" in result && result.reason === "unknown_session") {
          // Not a session of this gateway (another product on the same Stripe account?): nothing to credit.
          log.warn("paid checkout for an unknown session ignored", { eventId: event.id, type: event.type });
        }
        return json({ received: true });
      },
      { parse: "none" },
    );
};
