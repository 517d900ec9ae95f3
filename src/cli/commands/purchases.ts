import type { Command } from "commander";
import type { CheckoutRecord } from "../../core/checkout/sessions.ts";
import { refundPurchase } from "../../core/checkout/refunds.ts";
import { adminPurchaseView, refundView } from "../../core/admin/purchases.ts";
import { silentLogger } from "../../server/log.ts";
import { stripeClient, stripeRefunds } from "../../server/payments/stripe.ts";
import { withStore } from "../context.ts";
import { exactUsd, printRecords, printResult, type Output } from "../output.ts";
import { requireAccount } from "../args.ts";

/** The table `purchases list` prints, credits exact; --json prints each purchase as the console's API does. */
const PURCHASE_COLUMNS: Record<string, (c: CheckoutRecord) => string | number> = {
  "checkout session": (c) => c.id,
  pack: (c) => c.packId,
  "price USD": (c) => adminPurchaseView(c).priceUsd ?? "",
  "credits USD": (c) => exactUsd(c.credits),
  status: (c) => c.status,
  created: (c) => adminPurchaseView(c).createdAt,
  paid: (c) => adminPurchaseView(c).paidAt ?? "",
  "refunded USD": (c) => adminPurchaseView(c).refundedUsd,
  dispute: (c) => (c.disputeStatus === null ? "" : `${c.disputeStatus} (${adminPurchaseView(c).disputedUsd} USD)`),
};

function registerList(purchases: Command, output: () => Output): void {
  purchases
    .command("list")
    .description("an account's paid purchases, newest first, with what was refunded or disputed (--all: its unpaid checkout sessions too)")
    .requiredOption("--email <email>", "the account's e-mail")
    .option("--all", "include checkout sessions that are open, expired or failed")
    .action(async (opts: { email: string; all?: boolean }) =>
      withStore({}, async ({ store }) => {
        const account = await requireAccount(store, opts.email);
        printRecords(output(), await store.listCheckouts(account.id, { paidOnly: !opts.all }), adminPurchaseView, PURCHASE_COLUMNS);
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
        printResult(output(), refundView(refund),
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
