import type { Command } from "commander";
import type { CheckoutRecord } from "../../core/checkout/sessions.ts";
import { CREDIT_PACKS, isPackId } from "../../core/checkout/packs.ts";
import { withStore } from "../context.ts";
import { exactUsd, printRecords, type Output } from "../output.ts";
import { requireAccount } from "../args.ts";

const iso = (time: number | null) => (time === null ? null : new Date(time).toISOString());

const purchaseView = (c: CheckoutRecord) => ({
  sessionId: c.id,
  pack: c.packId,
  priceUsd: isPackId(c.packId) ? CREDIT_PACKS[c.packId].priceUsd : null,
  creditsUsd: exactUsd(c.credits),
  status: c.status,
  createdAt: iso(c.createdAt),
  paidAt: iso(c.paidAt),
});

export function registerPurchases(program: Command, output: () => Output): void {
  program
    .command("purchases")
    .description("credit pack purchases made through Stripe Checkout")
    .command("list")
    .description("an account's paid purchases, newest first (--all: its unpaid checkout sessions too)")
    .requiredOption("--email <email>", "the account's e-mail")
    .option("--all", "include checkout sessions that are open, expired or failed")
    .action(async (opts: { email: string; all?: boolean }) =>
      withStore({}, async ({ store }) => {
        const account = await requireAccount(store, opts.email);
        const purchases = (await store.listCheckouts(account.id, { paidOnly: !opts.all })).map(purchaseView);
        printRecords(output(), purchases, {
          "checkout session": (p) => p.sessionId,
          pack: (p) => p.pack,
          "price USD": (p) => p.priceUsd ?? "",
          "credits USD": (p) => p.creditsUsd,
          status: (p) => p.status,
          created: (p) => p.createdAt ?? "",
          paid: (p) => p.paidAt ?? "",
        });
      }),
    );
}
