import type { Command } from "commander";
import type { CheckoutRecord } from "../../core/checkout/sessions.ts";
import { paidCents, refundPurchase } from "../../core/checkout/refunds.ts";
import { formatUsd, nanos } from "../../core/money.ts";
import { CREDIT_PACKS, isPackId } from "../../core/checkout/packs.ts";
import { silentLogger } from "../../server/log.ts";
import { stripeClient, stripeRefunds } from "../../server/payments/stripe.ts";
import { withStore } from "../context.ts";
import { exactUsd, printRecords, printResult, type Output } from "../output.ts";
import { requireAccount } from "../args.ts";

const iso = (time: number | null) => (time === null ? null : new Date(time).toISOString());
const usdOfCents = (cents: bigint) => formatUsd(nanos(cents * 10_000_000n), 2);

const purchaseView = (c: CheckoutRecord) => ({
  sessionId: c.id,
  pack: c.packId,
  priceUsd: isPackId(c.packId) ? CREDIT_PACKS[c.packId].priceUsd : null,
  creditsUsd: exactUsd(c.credits),
  status: c.status,
  createdAt: iso(c.createdAt),
  paidAt: iso(c.paidAt),
  paidUsd: c.status === "paid" ? usdOfCents(paidCents(c)) : null,
  refundedUsd: usdOfCents(c.refundedCents),
  creditsTakenBackUsd: exactUsd(c.refundedCredits),
  disputedUsd: c.disputedCents === null ? null : usdOfCents(c.disputedCents),
  dispute: c.disputeStatus,
});

function registerList(purchases: Command, output: () => Output): void {
  purchases
    .command("list")
    .description("an account's paid purchases, newest first, with what was refunded or disputed (--all: its unpaid checkout sessions too)")
    .requiredOption("--email <email>", "the account's e-mail")
    .option("--all", "include checkout sessions that are open, expired or failed")
    .action(async (opts: { email: string; all?: boolean }) =>
      withStore({}, async ({ store }) => {
        const account = await requireAccount(store, opts.email);
        const rows = (await store.listCheckouts(account.id, { paidOnly: !opts.all })).map(purchaseView);
        printRecords(output(), rows, {
          "checkout session": (p) => p.sessionId,
          pack: (p) => p.pack,
          "price USD": (p) => p.priceUsd ?? "",
          "credits USD": (p) => p.creditsUsd,
          status: (p) => p.status,
          created: (p) => p.createdAt ?? "",
          paid: (p) => p.paidAt ?? "",
          "refunded USD": (p) => p.refundedUsd,
          dispute: (p) => (p.dispute === null ? "" : `${p.dispute} (${p.disputedUsd} USD)`),
        });
      }),
    );
}

function registerRefund(purchases: Command, output: () => Output): void {
  purchases
    .command("refund")
    .description("refund a purchase through Stripe, only while the credits it takes back are unspent; the balance moves when Stripe's event arrives")
    .argument("<id>", "the purchase's checkout session (cs_…), as purchases list and GET /account/purchases show it")
    .option("--usd <amount>", "the money to pay back, in USD (default: all of the payment not yet refunded)")
    .action(async (id: string, opts: { usd?: string }) =>
      withStore({}, async ({ config, store }) => {
        const stripe = stripeClient(config.stripe);
        const provider = stripe === null ? null : stripeRefunds(stripe, silentLogger);
        const refund = await refundPurchase({ store, provider }, { sessionId: id, usd: opts.usd });
        printResult(output(), refund,
          `Refund ${refund.refundId} of ${refund.refundedUsd} USD asked of Stripe (${refund.status}); `
          + `${refund.creditsTakenBackUsd} USD of credits are taken back when Stripe's charge.refunded event arrives.`);
      }),
    );
}

export function registerPurchases(program: Command, output: () => Output): void {
  const purchases = program.command("purchases").description("credit pack purchases made through Stripe Checkout, and their refunds");
  registerList(purchases, output);
  registerRefund(purchases, output);
}
