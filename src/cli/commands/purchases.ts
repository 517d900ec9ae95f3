import type { Command } from "commander";
import type { CheckoutRecord } from "../../core/checkout/sessions.ts";
import { adminPurchaseView, refundAsOperator } from "../../core/admin/purchases.ts";
import { isStripePurchase } from "../../core/checkout/purchases.ts";
import type { Store } from "../../core/ports.ts";
import { silentLogger } from "../../server/log.ts";
import { stripeClient, stripeRefunds } from "../../server/payments/stripe.ts";
import { cliActor, withStore } from "../context.ts";
import { CliError, exactUsd, printRecords, printResult, type Output } from "../output.ts";
import { requireAccount } from "../args.ts";
import { requireOrg } from "./orgs-args.ts";

/**
 * The table `purchases list` prints, credits exact; --json prints each purchase as the console's
 * API does (GET /account/purchases' fields and the console's money columns).
 */
const PURCHASE_COLUMNS: Record<string, (c: CheckoutRecord) => string | number> = {
  purchase: (c) => c.id,
  source: (c) => adminPurchaseView(c).source,
  pack: (c) => c.packId,
  "price USD": (c) => adminPurchaseView(c).priceUsd ?? "",
  "credits USD": (c) => exactUsd(c.credits),
  status: (c) => c.status,
  created: (c) => adminPurchaseView(c).createdAt,
  paid: (c) => adminPurchaseView(c).paidAt ?? "",
  "refunded USD": (c) => adminPurchaseView(c).refundedUsd,
  dispute: (c) => (c.disputeStatus === null ? "" : `${c.disputeStatus} (${adminPurchaseView(c).disputedUsd} USD)`),
  invoice: (c) => adminPurchaseView(c).invoiceUrl ?? "",
};

/**
 * The account named by exactly one of `--email` (a person) or `--org` (an organization's id or
 * name): purchases belong to either.
 */
async function purchaserOf(store: Store, opts: { email?: string; org?: string }): Promise<string> {
  if ((opts.email === undefined) === (opts.org === undefined)) throw new CliError("give exactly one of --email and --org");
  return opts.email !== undefined ? (await requireAccount(store, opts.email)).id : (await requireOrg(store, opts.org as string)).id;
}

function registerList(purchases: Command, output: () => Output): void {
  purchases
    .command("list")
    .description("an account's paid purchases (Checkout and automatic top-ups), newest first, with what was refunded or disputed (--all: unpaid ones too)")
    .option("--email <email>", "the person's e-mail")
    .option("--org <org>", "the organization's id or name")
    .option("--all", "include purchases that are open, expired or failed")
    .action(async (opts: { email?: string; org?: string; all?: boolean }) =>
      withStore({}, async ({ store }) => {
        const accountId = await purchaserOf(store, opts);
        const rows = (await store.listCheckouts(accountId, { paidOnly: !opts.all })).filter(isStripePurchase);
        printRecords(output(), rows, adminPurchaseView, PURCHASE_COLUMNS);
      }),
    );
}

function registerRefund(purchases: Command, output: () => Output): void {
  purchases
    .command("refund")
    .description("refund a purchase through Stripe, only while the credits it takes back are unspent; the balance moves when Stripe's event arrives")
    .argument("<id>", "the purchase: a Checkout Session (cs_…) or an automatic top-up (pi_…), as purchases list and GET /account/purchases show it")
    .option("--usd <amount>", "the money to pay back, in USD (default: all of the payment not yet refunded)")
    .action(async (id: string, opts: { usd?: string }) =>
      withStore({}, async ({ config, store }) => {
        const stripe = stripeClient(config.stripe);
        const provider = stripe === null ? null : stripeRefunds(stripe, silentLogger);
        // Audited on the buyer's account as the console's refunds are, naming the CLI's user.
        const refund = await refundAsOperator({ store, provider, audit: store }, { by: cliActor(), ip: null, now: Date.now() }, id, { usd: opts.usd });
        printResult(output(), refund,
          `Refund ${refund.refundId} of ${refund.refundedUsd} USD asked of Stripe (${refund.status}); `
          + `${refund.creditsTakenBackUsd} USD of credits are taken back when Stripe's charge.refunded event arrives.`);
      }),
    );
}

export function registerPurchases(program: Command, output: () => Output): void {
  const purchases = program.command("purchases").description("credit pack purchases (Stripe Checkout and automatic top-ups), and their refunds");
  registerList(purchases, output);
  registerRefund(purchases, output);
}
