import { describe, expect, test } from "bun:test";
import { CANCEL_FAILED, cancelPurchase, PURCHASE_NOT_FOUND, type CancelDeps } from "../../../src/core/checkout/cancel.ts";
import { listedPurchase } from "../../../src/core/checkout/purchases.ts";
import type { CheckoutRecord, HostedCheckoutStatus } from "../../../src/core/checkout/sessions.ts";
import { nanos } from "../../../src/core/money.ts";

const NOW = Date.UTC(2026, 10, 21, 13, 45);
const URL_OF = "https://checkout.stripe.test/c/pay/cs_test_1";

const record = (fields: Partial<CheckoutRecord> = {}): CheckoutRecord => ({
  id: "cs_test_1", accountId: "acct-1", packId: "pro", credits: nanos(60_000_000_000n), status: "open", createdAt: NOW - 60_000,
  expiresAt: NOW + 60_000, paidAt: null, receiptUrl: null, paymentIntentId: null, amountPaidCents: null, refundedCents: 0n,
  refundedCredits: nanos(0), disputedCents: null, disputeStatus: null, autoTopup: false, invoiceId: null, invoiceUrl: null,
  checkoutUrl: URL_OF, ...fields,
});

/** A store holding `stored`, and a provider that answers `atProvider` (or throws); what each was asked. */
function fakes(stored: CheckoutRecord | null, atProvider: HostedCheckoutStatus | Error = "expired") {
  let current = stored;
  const asked = { expired: [] as string[], marked: [] as string[] };
  const deps: CancelDeps = {
    store: {
      getCheckout: async () => current,
      expireCheckout: async (id) => {
        asked.marked.push(id);
        if (current?.status === "open") current = { ...current, status: "expired" };
      },
    },
    provider: {
      expireSession: async (id) => {
        asked.expired.push(id);
        if (atProvider instanceof Error) throw atProvider;
        return atProvider;
      },
    },
  };
  return { deps, asked };
}

const cancel = (deps: CancelDeps, purchaseId = "cs_test_1") => cancelPurchase(deps, { accountId: "acct-1", purchaseId, now: NOW });

describe("listedPurchase", () => {
  test.each([
    ["open, before its expiry", {}, URL_OF],
    ["open, at its expiry", { expiresAt: NOW }, undefined],
    ["paid", { status: "paid" as const }, undefined],
    ["expired", { status: "expired" as const }, undefined],
    ["open, recorded before the url was kept", { checkoutUrl: null }, undefined],
  ])("%s: checkoutUrl %p", (_title, fields, url) => {
    expect(listedPurchase(record(fields), NOW).checkoutUrl).toBe(url);
  });
});

describe("cancelPurchase", () => {
  test("expires the session at the provider, then marks it, and answers it as listed", async () => {
    const { deps, asked } = fakes(record());
    expect(await cancel(deps)).toEqual(listedPurchase(record({ status: "expired" }), NOW));
    expect(asked).toEqual({ expired: ["cs_test_1"], marked: ["cs_test_1"] });
  });

  test.each([
    ["no such purchase", null, "cs_test_1"],
    ["another account's", record({ accountId: "acct-2" }), "cs_test_1"],
    ["a capacity hold", record({ id: "hold_1" }), "hold_1"],
  ])("404 for %s, asking the provider nothing", async (_title, stored, id) => {
    const { deps, asked } = fakes(stored);
    await expect(cancel(deps, id)).rejects.toMatchObject({ kind: "not_found", message: PURCHASE_NOT_FOUND });
    expect(asked).toEqual({ expired: [], marked: [] });
  });

  test.each([
    ["paid", record({ status: "paid" })],
    ["expired", record({ status: "expired" })],
    ["failed", record({ status: "failed" })],
    ["an automatic top-up", record({ id: "pi_1", autoTopup: true })],
  ])("409 for a purchase %s, asking the provider nothing", async (_title, stored) => {
    const { deps, asked } = fakes(stored);
    await expect(cancel(deps, stored.id)).rejects.toMatchObject({ kind: "conflict" });
    expect(asked).toEqual({ expired: [], marked: [] });
  });

  test.each([
    ["throws", new Error("Stripe is down")],
    ["leaves it open", "open" as const],
  ])("502 when the provider %s, marking nothing", async (_title, answer) => {
    const { deps, asked } = fakes(record(), answer);
    await expect(cancel(deps)).rejects.toMatchObject({ kind: "provider_error", message: CANCEL_FAILED });
    expect(asked.marked).toEqual([]);
  });

  test("409 when the provider says the session is complete, which is never marked expired", async () => {
    const { deps, asked } = fakes(record(), "complete");
    await expect(cancel(deps)).rejects.toMatchObject({ kind: "conflict", message: expect.stringContaining("completed at Stripe") });
    expect(asked.marked).toEqual([]);
  });

  test("503 without a provider", async () => {
    const { deps } = fakes(record());
    await expect(cancel({ ...deps, provider: null })).rejects.toMatchObject({ kind: "unavailable" });
  });
});
