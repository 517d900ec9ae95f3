import { describe, expect, test } from "bun:test";
import { AppError } from "../../../src/core/errors.ts";
import type { RateLimitHit } from "../../../src/core/store.ts";
import { NO_ENDPOINT, NO_SUCH_EVENT, redeliverEvent, sendTestEvent, TEST_EVENTS_PER_HOUR } from "../../../src/core/webhooks/deliveries.ts";
import type { WebhookDelivery } from "../../../src/core/webhooks/store.ts";

/** A store with or without an endpoint, counting hits per scope, that records what was queued. */
function fakeStore(hasEndpoint: boolean) {
  const hits = new Map<string, number>();
  const queued: string[] = [];
  const delivery: WebhookDelivery = {
    id: "evt_1", type: "webhook.test", createdAt: 0, attempts: 0, sentAt: null, nextAttemptAt: 0, answer: null, redelivery: true, payload: "{}",
  };
  const store = {
    webhookEndpoint: async () => (hasEndpoint ? { url: "https://example.com/hook", secret: "whsec_x", createdAt: 0 } : null),
    hitRateLimit: async ({ scope, limit }: RateLimitHit) => {
      const count = (hits.get(scope) ?? 0) + 1;
      if (count > limit) return { allowed: false as const, retryAfterSeconds: 61 };
      hits.set(scope, count);
      return { allowed: true as const, remaining: limit - count };
    },
    queueWebhookEvent: async (_accountId: string, type: string) => (queued.push(type), "evt_1"),
    redeliverWebhookEvent: async (_accountId: string, eventId: string) => (queued.push(eventId), eventId === "evt_1" ? delivery : null),
  };
  return { store: store as unknown as Parameters<typeof sendTestEvent>[0], hits, queued };
}

const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: AppError) => ({ kind: error.kind, message: error.message }));

describe("test events and redeliveries", () => {
  test.each([
    ["a test event", (s: Parameters<typeof sendTestEvent>[0]) => sendTestEvent(s, "acct", 0)],
    ["a redelivery", (s: Parameters<typeof sendTestEvent>[0]) => redeliverEvent(s, "acct", "evt_1", 0)],
  ])("%s without an endpoint is not_found, and counts nothing", async (_title, send) => {
    const { store, hits, queued } = fakeStore(false);
    expect(await refusal(send(store))).toEqual({ kind: "not_found", message: NO_ENDPOINT });
    expect({ hits: hits.size, queued }).toEqual({ hits: 0, queued: [] });
  });

  test(`the ${TEST_EVENTS_PER_HOUR + 1}th test event in an hour is a rate_limit_error saying when to try again`, async () => {
    const { store, queued } = fakeStore(true);
    for (let i = 0; i < TEST_EVENTS_PER_HOUR; i++) expect(await sendTestEvent(store, "acct", 0)).toEqual({ id: "evt_1", type: "webhook.test" });
    expect(await refusal(sendTestEvent(store, "acct", 0))).toEqual({
      kind: "rate_limit_error", message: "Too many test events: at most 10 an hour per account. Try again in 2 minutes.",
    });
    expect(queued.length).toBe(TEST_EVENTS_PER_HOUR);
  });

  test.each([["evt_other"], ["x".repeat(201)]])("redelivering %p, not the account's, is not_found", async (eventId) => {
    const { store, queued } = fakeStore(true);
    expect(await refusal(redeliverEvent(store, "acct", eventId, 0))).toEqual({ kind: "not_found", message: NO_SUCH_EVENT });
    // An id longer than any the gateway makes is not even looked up.
    expect(queued).toEqual(eventId.length > 200 ? [] : [eventId]);
  });

  test("a redelivery answers the new delivery as listed", async () => {
    const { store } = fakeStore(true);
    expect(await redeliverEvent(store, "acct", "evt_1", 0)).toEqual({
      id: "evt_1", type: "webhook.test", createdAt: "1970-01-01T00:00:00.000Z", attempts: 0, sentAt: null,
      nextAttemptAt: "1970-01-01T00:00:00.000Z", answer: null, redelivery: true, payload: "{}",
    });
  });
});
