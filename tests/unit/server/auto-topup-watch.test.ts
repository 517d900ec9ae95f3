// The watch that starts automatic top-ups from settled charges: shutdown waits for the attempts
// it started (one cut off between its claim and Stripe's answer would keep the claim for an hour).
import { expect, test } from "bun:test";
import type { TopupClaim } from "../../../src/core/checkout/auto-topup.ts";
import { nanos } from "../../../src/core/money.ts";
import { silentLogger } from "../../../src/server/log.ts";
import { AutoTopupWatch, type AutoTopupWatchDeps } from "../../../src/server/payments/auto-topup-watch.ts";

const CLAIM: TopupClaim = {
  holdId: "topup_1", accountId: "acct", packId: "builder", amountCents: 2000n,
  card: { customerId: "cus_1", paymentMethodId: "pm_1", brand: "visa", last4: "4242" },
};

test("settled() resolves only once the attempt a charge started has ended", async () => {
  let answer!: () => void;
  const stripeAnswers = new Promise<void>((resolve) => (answer = resolve));
  const named: string[] = [];
  const store = {
    listArmedAutoTopups: async () => [{ accountId: "acct", threshold: nanos(5_000_000_000n) }],
    claimAutoTopup: async () => CLAIM,
    nameTopup: async (holdId: string) => void named.push(holdId),
  } as unknown as AutoTopupWatchDeps["store"];
  const provider = {
    chargeOffSession: async () => {
      await stripeAnswers;
      return { id: "pi_1", status: "processing" };
    },
  } as unknown as NonNullable<AutoTopupWatchDeps["provider"]>;
  const watch = new AutoTopupWatch({ store, provider, log: silentLogger, now: () => 1_000, dashboardUrl: "http://gw/dashboard" });
  await watch.refresh();

  watch.charged("acct", nanos(1_000_000_000n));
  let settled = false;
  const waiting = watch.settled().then(() => (settled = true));
  await Bun.sleep(20);
  expect(settled).toBe(false);
  answer();
  await waiting;
  expect(named).toEqual(["topup_1"]);
  // Nothing running: at once.
  await watch.settled();
});
