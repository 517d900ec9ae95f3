import { describe, expect, test } from "bun:test";
import {
  CHECKOUT_HOLD_MS, CHECKOUT_OPEN_MS, checkoutPack, fitsCapacity, startCheckout, utcMonthStart,
  type CheckoutDeps, type CheckoutHold, type CheckoutProvider, type NewHostedCheckout,
} from "../../../src/core/checkout/sessions.ts";
import { AppError } from "../../../src/core/errors.ts";
import { parseUsd, type Nanos } from "../../../src/core/money.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
const NOW = Date.UTC(2026, 10, 21, 13, 45);

describe("checkoutPack", () => {
  test.each([
    ["builder", "30"],
    ["pro", "60"],
    ["team", "120"],
    ["scale", "250"],
  ])("%s buys %s USD of credits", (packId, credits) => {
    expect(checkoutPack({ packId }).credits).toBe(usd(credits));
  });

  test.each([[undefined], ["Builder"], ["enterprise"], [""], [1], [null], [["pro"]]])("refuses %p with 400 Invalid pack ID", (packId) => {
    expect(() => checkoutPack({ packId })).toThrow(new AppError("invalid_request_error", "Invalid pack ID"));
  });
});

describe("utcMonthStart", () => {
  test.each([
    [NOW, Date.UTC(2026, 10, 1)],
    [Date.UTC(2026, 10, 1), Date.UTC(2026, 10, 1)],
    [Date.UTC(2026, 10, 1) - 1, Date.UTC(2026, 9, 1)],
    [Date.UTC(2027, 0, 1, 0, 0, 0, 1), Date.UTC(2027, 0, 1)],
  ])("the month of %p starts at %p", (now, start) => {
    expect(utcMonthStart(now)).toBe(start);
  });
});

describe("fitsCapacity", () => {
  test.each([
    [null, "1000000", "250", true],
    ["100", "70", "30", true],
    ["100", "70.000000001", "30", false],
    ["100", "0", "120", false],
    ["0", "0", "30", false],
  ] as const)("cap %p, committed %p, pack %p: %p", (cap, committed, credits, fits) => {
    expect(fitsCapacity(cap === null ? null : usd(cap), usd(committed), usd(credits))).toBe(fits);
  });
});

interface Recorded {
  holds: CheckoutHold[];
  opened: [string, { id: string; expiresAt: number; url: string }][];
  dropped: string[];
  created: NewHostedCheckout[];
}

function fakes(options: { exhausted?: boolean; providerFails?: boolean; expiresAt?: number | null } = {}) {
  const recorded: Recorded = { holds: [], opened: [], dropped: [], created: [] };
  const provider: CheckoutProvider = {
    async createSession(input) {
      recorded.created.push(input);
      if (options.providerFails) throw new Error("Stripe is down");
      return { id: "cs_test_1", url: "https://checkout.stripe.test/c/pay/cs_test_1", expiresAt: options.expiresAt ?? null };
    },
    expireSession: async () => "expired",
  };
  const deps: CheckoutDeps = {
    store: {
      holdCheckout: async (input) => {
        recorded.holds.push(input);
        return options.exhausted ? { exhausted: true } : { holdId: "hold_1" };
      },
      getCheckout: async () => null,
      openCheckout: async (holdId, session) => {
        recorded.opened.push([holdId, session]);
      },
      dropCheckoutHold: async (holdId) => {
        recorded.dropped.push(holdId);
      },
      expireCheckout: async () => {},
      listCheckouts: async () => [],
      getAutoTopup: async () => null,
    },
    provider,
    prices: { builder: "price_builder", pro: "price_pro", team: undefined, scale: "price_scale" },
    capacity: usd("1000"),
    dashboardUrl: "https://gw.example/api/dashboard",
    invoices: false,
  };
  return { deps, recorded };
}

describe("startCheckout", () => {
  test("holds capacity, creates the session with the pack's price, and records it under Stripe's id", async () => {
    const { deps, recorded } = fakes({ expiresAt: NOW + 3_600_000 });
    const answer = await startCheckout(deps, { accountId: "acct-1", body: { packId: "pro" }, now: NOW });
    expect(answer).toEqual({ url: "https://checkout.stripe.test/c/pay/cs_test_1", sessionId: "cs_test_1" });
    expect(recorded.holds).toEqual([
      {
        accountId: "acct-1", pack: expect.objectContaining({ id: "pro", credits: usd("60") }), capacity: usd("1000"),
        monthStart: Date.UTC(2026, 10, 1), openedSince: NOW - CHECKOUT_OPEN_MS, holdExpiresAt: NOW + CHECKOUT_HOLD_MS, now: NOW,
      },
    ]);
    expect(recorded.created).toEqual([
      {
        priceId: "price_pro", accountId: "acct-1", packId: "pro", idempotencyKey: "hold_1",
        successUrl: "https://gw.example/api/dashboard/topup?checkout=success&session_id={CHECKOUT_SESSION_ID}",
        cancelUrl: "https://gw.example/api/dashboard/topup?checkout=cancelled", saveCard: null, invoices: false,
      },
    ]);
    expect(recorded.opened).toEqual([["hold_1", { id: "cs_test_1", expiresAt: NOW + 3_600_000, url: "https://checkout.stripe.test/c/pay/cs_test_1" }]]);
  });

  test("records a session whose expiry Stripe did not give as open for 24 hours", async () => {
    const { deps, recorded } = fakes({ expiresAt: null });
    await startCheckout(deps, { accountId: "acct-1", body: { packId: "builder" }, now: NOW });
    expect(recorded.opened).toEqual([["hold_1", { id: "cs_test_1", expiresAt: NOW + CHECKOUT_OPEN_MS, url: "https://checkout.stripe.test/c/pay/cs_test_1" }]]);
  });

  test("answers 503 for a pack without a price, before holding capacity or calling Stripe", async () => {
    const { deps, recorded } = fakes();
    const refused = startCheckout(deps, { accountId: "acct-1", body: { packId: "team" }, now: NOW });
    await expect(refused).rejects.toThrow(new AppError("unavailable", "This pack is not yet configured. Please contact support."));
    expect(recorded).toEqual({ holds: [], opened: [], dropped: [], created: [] });
  });

  test("answers 503 for every pack when Stripe is not configured", async () => {
    const { deps } = fakes();
    const refused = startCheckout({ ...deps, provider: null }, { accountId: "acct-1", body: { packId: "pro" }, now: NOW });
    await expect(refused).rejects.toThrow("This pack is not yet configured. Please contact support.");
  });

  test("answers 409 capacity_exhausted without creating a Stripe session", async () => {
    const { deps, recorded } = fakes({ exhausted: true });
    const refused = startCheckout(deps, { accountId: "acct-1", body: { packId: "scale" }, now: NOW });
    await expect(refused).rejects.toThrow(new AppError("conflict", "capacity_exhausted"));
    expect(recorded.created).toEqual([]);
  });

  test("answers 500 when Stripe fails, and gives the held capacity back", async () => {
    const { deps, recorded } = fakes({ providerFails: true });
    const refused = startCheckout(deps, { accountId: "acct-1", body: { packId: "pro" }, now: NOW });
    await expect(refused).rejects.toThrow(new AppError("internal", "Failed to create checkout session. Please try again."));
    expect(recorded.dropped).toEqual(["hold_1"]);
    expect(recorded.opened).toEqual([]);
  });

  test("checks the pack before anything else", async () => {
    const { deps, recorded } = fakes({ exhausted: true });
    await expect(startCheckout(deps, { accountId: "acct-1", body: {}, now: NOW })).rejects.toThrow("Invalid pack ID");
    expect(recorded.holds).toEqual([]);
  });
});
