// Deliveries an account asks for from its settings: a test event, and an event sent again. Both
// POST to a URL the account typed, so both are limited per account and hour, counted in the
// database (the rate-limit events) so that the limits hold across instances: without them the
// gateway would be a tool for flooding someone else's server.
import { HOUR_MS, throttle } from "../accounts/sign-in.ts";
import { AppError } from "../errors.ts";
import type { RateLimitStore } from "../store.ts";
import type { WebhookDelivery, WebhookStore } from "./store.ts";

/** Test events one account may send in a rolling hour. */
export const TEST_EVENTS_PER_HOUR = 10;
/** Redeliveries one account may ask for in a rolling hour: enough to replay an outage's events by hand. */
export const REDELIVERIES_PER_HOUR = 60;

export const NO_ENDPOINT = "No webhook endpoint is set: save one with PUT /settings/webhook first";
export const NO_SUCH_EVENT = "No such webhook event on this account";
/** Longer than any event id the gateway makes (UUIDs, a key's limit-and-hour name): not looked up. */
const EVENT_ID_MAX_LENGTH = 200;

type Store = WebhookStore & RateLimitStore;

/** A delivery as `GET /settings/webhook` lists it, times as ISO strings. */
export function deliveryView(d: WebhookDelivery) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: d.id, type: d.type, createdAt: iso(d.createdAt), attempts: d.attempts, sentAt: iso(d.sentAt),
    nextAttemptAt: iso(d.nextAttemptAt), answer: d.answer, redelivery: d.redelivery, payload: d.payload,
  };
}

const tooMany = (what: string, limit: number) => (retryAfterSeconds: number) => {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return `Too many ${what}: at most ${limit} an hour per account. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
};

/** The endpoint must be there before anything is counted: a 404 costs none of the hour's sends. */
async function assertEndpoint(store: Store, accountId: string): Promise<void> {
  if (!(await store.webhookEndpoint(accountId))) throw new AppError("not_found", NO_ENDPOINT);
}

/**
 * `POST /settings/webhook/test`: queues `webhook.test` (`data: {}`) for the account's endpoint,
 * signed and delivered through the outbox like any event; answers its id and type.
 */
export async function sendTestEvent(store: Store, accountId: string, now: number): Promise<{ id: string; type: "webhook.test" }> {
  await assertEndpoint(store, accountId);
  await throttle(store, `webhook-test:${accountId}`, { limit: TEST_EVENTS_PER_HOUR, windowMs: HOUR_MS }, now, tooMany("test events", TEST_EVENTS_PER_HOUR));
  const id = await store.queueWebhookEvent(accountId, "webhook.test", {}, now);
  // Removed between the check and the insert.
  if (id === null) throw new AppError("not_found", NO_ENDPOINT);
  return { id, type: "webhook.test" };
}

/**
 * `POST /settings/webhook/deliveries/{eventId}/redeliver`: the account's event queued again for
 * its current endpoint, with the same id and body (receivers deduplicate by id, as with Stripe's
 * and GitHub's redeliveries), as a new delivery, so the listing keeps the first one's answers.
 */
export async function redeliverEvent(store: Store, accountId: string, eventId: string, now: number) {
  await assertEndpoint(store, accountId);
  await throttle(store, `webhook-redeliver:${accountId}`, { limit: REDELIVERIES_PER_HOUR, windowMs: HOUR_MS }, now, tooMany("redeliveries", REDELIVERIES_PER_HOUR));
  const delivery = eventId.length > EVENT_ID_MAX_LENGTH ? null : await store.redeliverWebhookEvent(accountId, eventId, now);
  if (delivery === null) throw new AppError("not_found", NO_SUCH_EVENT);
  return deliveryView(delivery);
}
