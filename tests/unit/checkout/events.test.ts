import { describe, expect, test } from "bun:test";
import { applyCheckoutEvent, readCheckoutEvent, type CheckoutEventStore } from "../../../src/core/checkout/events.ts";
import { parseUsd, type Nanos } from "../../../src/core/money.ts";

const session = (fields: Record<string, unknown> = {}) => ({
  id: "cs_test_42",
  object: "checkout.session",
  payment_status: "paid",
  amount_total: 999_999_00,
  metadata: { accountId: "acct-1", packId: "team" },
  ...fields,
});
const event = (type: string, object: unknown, id = "evt_1") => ({ id, type, data: { object } });
const base = { eventId: "evt_1", sessionId: "cs_test_42" };
const teamFallback = { accountId: "acct-1", packId: "team", credits: parseUsd("120") as Nanos };

describe("readCheckoutEvent", () => {
  test("a completed, paid session is paid, with the pack's credits from its metadata, never the event's amount", () => {
    expect(readCheckoutEvent(event("checkout.session.completed", session()))).toEqual({
      kind: "paid", ...base, eventType: "checkout.session.completed", fallback: teamFallback, payment: { paymentIntentId: null, amountCents: 999_999_00n },
    });
  });

  test("a delayed payment that succeeded is paid", () => {
    expect(readCheckoutEvent(event("checkout.session.async_payment_succeeded", session({ payment_status: "paid" })))).toEqual({
      kind: "paid", ...base, eventType: "checkout.session.async_payment_succeeded", fallback: teamFallback, payment: { paymentIntentId: null, amountCents: 999_999_00n },
    });
  });

  test.each([["unpaid"], ["no_payment_required"]])("a completed session with payment status %s is not paid yet", (status) => {
    expect(readCheckoutEvent(event("checkout.session.completed", session({ payment_status: status })))).toEqual({ kind: "ignored" });
  });

  test.each([
    ["checkout.session.expired", "expired"],
    ["checkout.session.async_payment_failed", "failed"],
  ] as const)("%s closes the session as %s", (type, status) => {
    expect(readCheckoutEvent(event(type, session()))).toEqual({ kind: "closed", ...base, eventType: type, status });
  });

  test.each([
    ["no metadata", { metadata: {} }],
    ["an unknown pack", { metadata: { accountId: "acct-1", packId: "gold" } }],
    ["an empty account", { metadata: { accountId: "", packId: "pro" } }],
  ])("a paid session with %s has no fallback", (_title, fields) => {
    expect(readCheckoutEvent(event("checkout.session.completed", session(fields)))).toMatchObject({ kind: "paid", fallback: null });
  });

  test.each([
    ["another event type", event("customer.created", { id: "cus_1", object: "customer" })],
    ["a payment intent", event("payment_intent.succeeded", { id: "pi_1", object: "payment_intent" })],
    ["a completed event that does not carry a session", event("checkout.session.completed", { id: "x", object: "invoice" })],
    ["an object without an id", event("checkout.session.completed", { object: "checkout.session", payment_status: "paid" })],
  ])("ignores %s", (_title, unknown) => {
    expect(readCheckoutEvent(unknown)).toEqual({ kind: "ignored" });
  });
});

describe("applyCheckoutEvent", () => {
  const calls: string[] = [];
  const store: CheckoutEventStore = {
    recordCheckoutPayment: async (input) => {
      calls.push(`pay ${input.sessionId} at ${input.now}`);
      return { credited: false, reason: "duplicate" };
    },
    closeCheckout: async (input) => {
      calls.push(`close ${input.sessionId} ${input.status} at ${input.now}`);
    },
  };

  test("pays, closes or ignores as the event asks", async () => {
    calls.length = 0;
    expect(await applyCheckoutEvent(store, readCheckoutEvent(event("checkout.session.completed", session())), 5)).toEqual({
      credited: false, reason: "duplicate",
    });
    expect(await applyCheckoutEvent(store, readCheckoutEvent(event("checkout.session.expired", session())), 6)).toEqual({ closed: true });
    expect(await applyCheckoutEvent(store, { kind: "ignored" }, 7)).toEqual({ ignored: true });
    expect(calls).toEqual(["pay cs_test_42 at 5", "close cs_test_42 expired at 6"]);
  });
});
