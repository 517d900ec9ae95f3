import type { CheckoutRecord, CheckoutStore } from "./sessions.ts";
import { formatUsd } from "../money.ts";
import { CREDIT_PACKS, isPackId } from "./packs.ts";

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * A credit pack purchase as the dashboard and the console show it: the pack, its price and
 * credits, the checkout's status and, once paid, Stripe's receipt when Stripe gave one.
 */
export const purchaseView = (c: CheckoutRecord) => ({
  id: c.id,
  createdAt: iso(c.createdAt) as string,
  packId: c.packId,
  packName: isPackId(c.packId) ? CREDIT_PACKS[c.packId].name : c.packId,
  priceUsd: isPackId(c.packId) ? CREDIT_PACKS[c.packId].priceUsd : null,
  creditsUsd: formatUsd(c.credits, 2),
  status: c.status,
  paidAt: iso(c.paidAt),
  receiptUrl: c.receiptUrl,
  invoiceUrl: c.invoiceUrl,
  /** `checkout` (a Checkout Session, `cs_…`) or `auto_topup` (an off-session payment, `pi_…`). */
  source: c.autoTopup ? "auto_topup" : "checkout",
});

/** Purchases Stripe knows: Checkout Sessions (`cs_…`) and automatic top-ups' PaymentIntents (`pi_…`). */
export const isStripePurchase = (c: Pick<CheckoutRecord, "id">): boolean => c.id.startsWith("cs_") || c.id.startsWith("pi_");

/**
 * A purchase as `GET /account/purchases` lists it: while its Checkout Session is open and not
 * past its expiry, with Stripe's page (`checkoutUrl`), where the buyer may still pay.
 */
export function listedPurchase(c: CheckoutRecord, now: number) {
  const payable = c.status === "open" && now < c.expiresAt ? c.checkoutUrl : null;
  return { ...purchaseView(c), ...(payable === null ? {} : { checkoutUrl: payable }) };
}

/**
 * `GET /account/purchases`: the account's purchases, newest first. Open ones are shown too (a
 * payment Stripe has yet to confirm); a capacity hold or a top-up attempt that never reached
 * Stripe is not a purchase.
 */
export async function purchaseList(store: Pick<CheckoutStore, "listCheckouts">, accountId: string, now: number) {
  const all = await store.listCheckouts(accountId, { paidOnly: false });
  return { purchases: all.filter(isStripePurchase).map((c) => listedPurchase(c, now)) };
}
