import type Stripe from "stripe";
import { refuseTopup } from "../../core/checkout/auto-topup-run.ts";
import type { ProviderEvent } from "../../core/checkout/events.ts";
import { readTopupEvent } from "../../core/checkout/topup-events.ts";
import { formatUsd } from "../../core/money.ts";
import type { Store } from "../../core/ports.ts";
import type { Logger } from "../log.ts";
import type { AutoTopupWatch } from "./auto-topup-watch.ts";
import { keepReceipt } from "./receipts.ts";
import { paymentDetails } from "./stripe.ts";

export interface TopupWebhookDeps {
  stripe: Stripe | null;
  store: Store;
  log: Logger;
  now: () => number;
  watch: AutoTopupWatch;
  dashboardUrl: string;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};

/**
 * Stripe's events about automatic top-ups: a top-up's PaymentIntent succeeded (credited once,
 * audited, its receipt kept) or failed (turned off with one mail); and the card a Checkout
 * purchase saved for later top-ups.
 */
export function topupWebhook(deps: TopupWebhookDeps) {
  const { stripe, store, log, now, watch } = deps;
  return {
    /** Applies a top-up PaymentIntent's event; false when the event is not one. */
    async apply(event: ProviderEvent): Promise<boolean> {
      const topupEvent = readTopupEvent(event);
      if (topupEvent === null) return false;
      const { topup, paymentIntentId } = topupEvent;
      if (topupEvent.kind === "topup_failed") {
        const failure = { eventId: event.id, eventType: event.type, paymentIntentId, reason: topupEvent.reason, topup };
        if (await refuseTopup({ store, dashboardUrl: deps.dashboardUrl }, failure, now())) await watch.refresh();
        return true;
      }
      const outcome = await store.recordTopupPayment({ ...topupEvent, now: now() });
      if (outcome.credited) {
        const creditsUsd = formatUsd(outcome.credits, 9);
        log.info("automatic top-up credited", { eventId: event.id, accountId: outcome.accountId, paymentIntentId, creditsUsd });
        await store.recordAudit({
          accountId: outcome.accountId, type: "auto_topup_paid", ip: null, at: now(),
          detail: `automatic top-up ${paymentIntentId}: ${creditsUsd} USD of credits (${topup.packId} pack)`,
        });
        keepReceipt(stripe, store, log, { id: paymentIntentId, paymentIntentId });
      }
      return true;
    },

    /**
     * Keeps the card of a paid Checkout Session opened to save it (automatic top-up on):
     * Stripe's customer from the session, the payment method and card from its payment. Done
     * before the webhook answers, for every delivery of the event, so that a failed lookup is
     * Stripe's retry to make and the next charge below the threshold finds the card.
     */
    async saveCard(session: unknown): Promise<void> {
      const { metadata, customer, payment_intent: intent } = record(session);
      const { saveCard, accountId } = record(metadata);
      if (saveCard !== "1" || typeof accountId !== "string" || typeof customer !== "string" || typeof intent !== "string" || stripe === null) return;
      const details = await paymentDetails(stripe, intent);
      if (details.paymentMethodId === null) return;
      await store.saveAutoTopupCard(accountId, { customerId: customer, paymentMethodId: details.paymentMethodId, ...details.card }, now());
      await watch.refresh();
    },
  };
}
