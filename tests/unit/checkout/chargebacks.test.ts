import { describe, expect, test } from "bun:test";
import { creditsShare, readChargeEvent } from "../../../src/core/checkout/chargebacks.ts";
import { parseUsd, type Nanos } from "../../../src/core/money.ts";

const usd = (amount: string) => parseUsd(amount) as Nanos;
const event = (type: string, object: unknown, id = "evt_1") => ({ id, type, data: { object } });
const charge = (fields: Record<string, unknown> = {}) => ({
  id: "ch_1", object: "charge", amount: 5000, amount_refunded: 2500, refunded: false, payment_intent: "pi_1", ...fields,
});
const dispute = (fields: Record<string, unknown> = {}) => ({
  id: "du_1", object: "dispute", amount: 5000, charge: "ch_1", payment_intent: "pi_1", status: "needs_response", ...fields,
});
const disputeBase = { kind: "dispute", eventId: "evt_1", paymentIntentId: "pi_1", disputeId: "du_1", disputedCents: 5000n };

describe("readChargeEvent", () => {
  test("charge.refunded carries the charge's amount and its cumulative amount refunded", () => {
    expect(readChargeEvent(event("charge.refunded", charge()))).toEqual({
      kind: "refunded", eventId: "evt_1", eventType: "charge.refunded", paymentIntentId: "pi_1", amountCents: 5000n, refundedCents: 2500n,
    });
  });

  test.each([
    ["created", "charge.dispute.created", "needs_response", "open"],
    ["closed as won", "charge.dispute.closed", "won", "won"],
    ["closed as an inquiry without a chargeback", "charge.dispute.closed", "warning_closed", "won"],
    ["closed as lost", "charge.dispute.closed", "lost", "lost"],
  ])("a dispute %s", (_title, type, status, outcome) => {
    expect(readChargeEvent(event(type, dispute({ status })))).toEqual({ ...disputeBase, eventType: type, status: outcome } as never);
  });

  test.each([
    ["a charge without a payment intent", event("charge.refunded", charge({ payment_intent: null }))],
    ["a refund amount that is not whole cents", event("charge.refunded", charge({ amount_refunded: 12.5 }))],
    ["a negative amount", event("charge.refunded", charge({ amount: -1 }))],
    ["a refunded event about something that is not a charge", event("charge.refunded", dispute())],
    ["a dispute without a payment intent", event("charge.dispute.created", dispute({ payment_intent: null }))],
    ["a dispute closed in a state the gateway does not know", event("charge.dispute.closed", dispute({ status: "prevented" }))],
    ["a dispute's update", event("charge.dispute.updated", dispute())],
    ["a checkout event", event("checkout.session.completed", { id: "cs_1", object: "checkout.session" })],
  ])("ignores %s", (_title, given) => {
    expect(readChargeEvent(given)).toBeNull();
  });
});

describe("creditsShare", () => {
  test.each([
    ["all of it", "60", 5000n, 5000n, "60"],
    ["half", "60", 2500n, 5000n, "30"],
    ["a third, rounded down to the nano-USD in the customer's favour", "100", 1000n, 3000n, "33.333333333"],
    ["two thirds, from the cumulative total: never the sum of rounded parts", "100", 2000n, 3000n, "66.666666666"],
    ["more than was paid, capped at all the credits", "30", 9999n, 2500n, "30"],
    ["nothing", "30", 0n, 2500n, "0"],
    ["of a payment of nothing", "30", 100n, 0n, "0"],
  ])("%s", (_title, credits, part, whole, share) => {
    expect(creditsShare(usd(credits), part, whole)).toBe(usd(share));
  });
});
