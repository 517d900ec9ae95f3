import { call } from "../api.ts";
import { dataTable } from "../chart.ts";
import { h } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { dateTime, money } from "../format.ts";
import type { PurchaseList, PurchaseView } from "../wire.ts";

const STATUS: Record<string, string> = { paid: "Paid", open: "Awaiting payment", expired: "Expired", failed: "Payment failed" };
const BADGE: Record<string, string> = { paid: "success", open: "expired", expired: "expired", failed: "error" };

/** A purchase's receipt link: Stripe's page, opened in a new tab, when Stripe gave one. */
const receipt = (p: PurchaseView): Node | string =>
  p.receiptUrl === null ? "—" : h("a", { href: p.receiptUrl, target: "_blank", rel: "noopener noreferrer" }, "Receipt", h("span", { class: "visually-hidden" }, ` for ${p.packName}, ${dateTime(p.createdAt)} (opens Stripe)`));

/** A purchase's invoice (STRIPE_INVOICES=on): Stripe's hosted page, beside the receipt. */
const invoice = (p: PurchaseView): Node | null =>
  p.invoiceUrl === null ? null : h("a", { href: p.invoiceUrl, target: "_blank", rel: "noopener noreferrer" }, "Invoice", h("span", { class: "visually-hidden" }, ` for ${p.packName}, ${dateTime(p.createdAt)} (opens Stripe)`));

/** The documents of a purchase: its receipt and, when Stripe issued one, its invoice. */
const documents = (p: PurchaseView): Node | string => {
  const bill = invoice(p);
  return bill === null ? receipt(p) : h("span", { class: "links" }, receipt(p), " · ", bill);
};

/** The account's credit pack purchases (bought at Checkout, or automatic top-ups), newest first, with Stripe's receipts and invoices. */
export async function renderPurchases(root: HTMLElement): Promise<void> {
  const { purchases } = await call<PurchaseList>("GET", "/account/purchases");
  if (purchases.length === 0) {
    root.replaceChildren(h("p", { class: "muted" }, "No purchases yet. ", h("a", { href: pageUrl("topup") }, "Buy a credit pack"), "."));
    return;
  }
  const table = dataTable({
    caption: "Credit pack purchases, newest first",
    columns: ["Date", "Pack", "Price", "Credits", "Status", "Receipt"],
    numeric: [2, 3],
    rows: purchases.map((p) => [
      h("time", { datetime: p.createdAt }, dateTime(p.createdAt)),
      p.source === "auto_topup" ? h("span", {}, p.packName, h("span", { class: "muted" }, " (automatic top-up)")) : p.packName,
      p.priceUsd === null ? "—" : money(p.priceUsd),
      money(p.creditsUsd),
      h("span", { class: `badge ${BADGE[p.status] ?? "error"}` }, STATUS[p.status] ?? p.status),
      documents(p),
    ]),
  });
  root.replaceChildren(h("p", {}, h("a", { href: pageUrl("topup"), class: "button secondary" }, "Buy credits")), table);
}
