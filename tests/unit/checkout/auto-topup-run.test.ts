// What one automatic top-up attempt does with Stripe's failures: a failure that made no payment
// frees the claim for the next charge; a lost answer, which may have charged the card, keeps it.
import { expect, test } from "bun:test";
import { OffSessionOutcomeUnknown, runAutoTopup, type TopupProvider, type TopupRunDeps } from "../../../src/core/checkout/auto-topup-run.ts";
import type { TopupClaim } from "../../../src/core/checkout/auto-topup.ts";

const CLAIM: TopupClaim = {
  holdId: "topup_1", accountId: "acct", packId: "builder", amountCents: 2000n,
  card: { customerId: "cus_1", paymentMethodId: "pm_1", brand: "visa", last4: "4242" },
};

/** A store that grants one claim while none is held, and records what is done with it. */
function world(failure: Error) {
  const calls: string[] = [];
  let held = false;
  const store: TopupRunDeps["store"] = {
    claimAutoTopup: async () => {
      if (held) return null;
      held = true;
      return CLAIM;
    },
    dropTopupClaim: async () => {
      held = false;
      calls.push("dropped");
    },
    nameTopup: async () => void calls.push("named"),
    failTopup: async () => ({ turnedOff: true }),
    recordAudit: async () => void calls.push("audited"),
    getAccount: async () => null,
  } as unknown as TopupRunDeps["store"];
  let charges = 0;
  const provider: TopupProvider = {
    chargeOffSession: async () => {
      charges++;
      throw failure;
    },
  };
  const deps: TopupRunDeps = { store, provider, dashboardUrl: "http://gw/dashboard" };
  return { deps, calls, charges: () => charges };
}

test("a failure that made no payment frees the claim: the next charge tries again", async () => {
  const { deps, calls, charges } = world(new Error("Invalid API key"));
  await expect(runAutoTopup(deps, "acct", 1)).rejects.toThrow("Invalid API key");
  expect(calls).toEqual(["dropped"]);
  await expect(runAutoTopup(deps, "acct", 2)).rejects.toThrow();
  expect(charges()).toBe(2);
});

test("a lost answer keeps the claim and its purchase: no second payment until Stripe's event settles the first", async () => {
  const { deps, calls, charges } = world(new OffSessionOutcomeUnknown("Stripe's answer was lost: socket hang up"));
  await expect(runAutoTopup(deps, "acct", 1)).rejects.toBeInstanceOf(OffSessionOutcomeUnknown);
  expect(calls).toEqual([]);
  expect(await runAutoTopup(deps, "acct", 2)).toBe("none");
  expect(charges()).toBe(1);
});
