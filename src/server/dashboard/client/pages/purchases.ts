import { call } from "../api.ts";
import { dataTable } from "../chart.ts";
import { h, hidden } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { dateTime, money } from "../format.ts";
import { confirmAction } from "../modal.ts";
import type { PurchaseList, PurchaseView } from "../wire.ts";

const STATUS: Record<string, string> = { paid: "Paid", open: "Awaiting payment", expired: "Expired or cancelled", failed: "Payment failed" };
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

type Notice = { tone: "success" | "error"; text: string };

/**
 * A checkout still open: back to Stripe's page in this tab while it can be paid, and Cancel,
 * which asks first. An automatic top-up has neither: nobody pays it on a page.
 */
function openActions(p: PurchaseView, cancel: (p: PurchaseView) => Promise<void>): Node | null {
  if (p.status !== "open" || p.source !== "checkout") return null;
  const label = ` the ${p.packName} checkout of ${dateTime(p.createdAt)}`;
  return h("div", { class: "row-actions" },
    p.checkoutUrl === undefined ? null : h("a", { href: p.checkoutUrl, class: "button" }, "Continue to payment", hidden(` for${label}`)),
    h("button", { type: "button", class: "button danger", onClick: () => void cancel(p) }, "Cancel", hidden(label)));
}

/** The account's credit pack purchases (bought at Checkout, or automatic top-ups), newest first, with Stripe's receipts and invoices. */
export const renderPurchases = (root: HTMLElement): Promise<void> => drawPurchases(root);

/** The purchases table, under what the last action on it came to (`notice`). */
async function drawPurchases(root: HTMLElement, notice?: Notice): Promise<void> {
  const { purchases } = await call<PurchaseList>("GET", "/account/purchases");
  const status = h("div", { class: "form-status", "aria-live": "polite" },
    notice ? h("p", { class: `notice ${notice.tone}`, role: notice.tone === "error" ? "alert" : "status" }, notice.text) : null);
  if (purchases.length === 0) {
    root.replaceChildren(status, h("p", { class: "muted" }, "No purchases yet. ", h("a", { href: pageUrl("topup") }, "Buy a credit pack"), "."));
    return;
  }
  const cancel = async (p: PurchaseView) => {
    const confirmed = await confirmAction({
      title: `Cancel the ${p.packName} checkout?`, body: "Its Stripe page stops taking payment at once. You can buy the pack again from Top up.", confirmLabel: "Cancel checkout",
    });
    if (!confirmed) return;
    try {
      await call("POST", `/account/purchases/${encodeURIComponent(p.id)}/cancel`);
      await drawPurchases(root, { tone: "success", text: `The ${p.packName} checkout is cancelled.` });
    } catch (error) {
      await drawPurchases(root, { tone: "error", text: error instanceof Error ? error.message : String(error) });
    }
  };
  const table = dataTable({
    caption: "Credit pack purchases, newest first",
    columns: ["Date", "Pack", "Price", "Credits", "Status", "Receipt"],
    numeric: [2, 3],
    rows: purchases.map((p) => [
      h("time", { datetime: p.createdAt }, dateTime(p.createdAt)),
      p.source === "auto_topup" ? h("span", {}, p.packName, h("span", { class: "muted" }, " (automatic top-up)")) : p.packName,
      p.priceUsd === null ? "—" : money(p.priceUsd),
      money(p.creditsUsd),
      h("div", {}, h("span", { class: `badge ${BADGE[p.status] ?? "error"}` }, STATUS[p.status] ?? p.status), openActions(p, cancel)),
      documents(p),
    ]),
  });
  root.replaceChildren(status, h("p", {}, h("a", { href: pageUrl("topup"), class: "button secondary" }, "Buy credits")), table);
}
