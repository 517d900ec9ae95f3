import { Elysia } from "elysia";
import { applyCheckoutEvent, readCheckoutEvent } from "../../core/checkout/events.ts";
import { formatUsd } from "../../core/money.ts";
import type { AppDeps } from "../deps.ts";
import { json, methodNotAllowed, plainError } from "../http.ts";
import { keepReceipt, paymentIntentOf } from "../payments/receipts.ts";
import { stripeClient } from "../payments/stripe.ts";
import { verifiedStripeEvent } from "../payments/stripe-webhook.ts";

/**
 * `POST /webhooks/stripe`: Stripe's events, verified over the raw body. Paid checkouts are
 * credited once however often they are delivered; events the gateway does not act on are
 * acknowledged with 200 so that Stripe stops sending them.
 */
export const webhookRoutes = (deps: AppDeps) => {
  const { config, store, log, now } = deps;
  const stripe = stripeClient(config.stripe);
  return new Elysia({ name: "webhooks" })
    .all("/webhooks/stripe", methodNotAllowed(plainError, "POST"))
    .post(
      "/webhooks/stripe",
      async ({ request }) => {
        const event = await verifiedStripeEvent(request, config.stripe.webhookSecret, now(), log);
        const checkoutEvent = readCheckoutEvent(event);
        const result = await applyCheckoutEvent(store, checkoutEvent, now());
        if ("credited" in result && result.credited) {
          log.info("checkout credited", { eventId: event.id, accountId: result.accountId, creditsUsd: formatUsd(result.credits, 9) });
          if (checkoutEvent.kind === "paid") keepReceipt(stripe, store, log, checkoutEvent.sessionId, paymentIntentOf(event.data.object));
        } else if ("reason" in result && result.reason === "unknown_session") {
          // Not a session of this gateway (another product on the same Stripe account?): nothing to credit.
          log.warn("paid checkout for an unknown session ignored", { eventId: event.id, type: event.type });
        }
        return json({ received: true });
      },
      { parse: "none" },
    );
};
