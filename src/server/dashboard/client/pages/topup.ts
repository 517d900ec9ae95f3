import { ApiError, call } from "../api.ts";
import { h } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { money, usd } from "../format.ts";
import type { AccountView, CheckoutStarted, PurchaseList } from "../wire.ts";
import { renderAutoTopup } from "./topup-auto.ts";

interface Pack {
  id: string;
  name: string;
  priceUsd: string;
  creditsUsd: string;
  /** False when the gateway has no Stripe key or no price for the pack: buying it could only fail. */
  purchasable: boolean;
}

const UNAVAILABLE = "Credit packs cannot be bought here at the moment: card payments are not set up on this gateway. "
  + "Your balance and keys are not affected; ask the gateway's operator to enable payments.";

/**
 * What became of the checkout Stripe sent the buyer back from, as the gateway knows it: Stripe's
 * redirect alone proves nothing (the credits come with Stripe's webhook), so the purchase is looked up.
 */
async function returnedFromCheckout(sessionId: string | null): Promise<HTMLElement> {
  const { purchases } = await call<PurchaseList>("GET", "/account/purchases").catch(() => ({ purchases: [] }));
  const purchase = purchases.find((p) => p.id === sessionId);
  const link = h("a", { href: pageUrl("purchases") }, "Purchases");
  if (purchase?.status === "paid") {
    return h("p", { class: "notice success", role: "status" }, `Payment received: ${usd(purchase.creditsUsd)} in credits were added to your balance.`);
  }
  if (purchase?.status === "failed" || purchase?.status === "expired") {
    return h("p", { class: "notice error", role: "alert" }, "Stripe did not take this payment, and you were not charged. See ", link, ".");
  }
  return h("p", { class: "notice info", role: "status" },
    "Stripe is confirming your payment. The credits are added to your balance once it has, usually within a minute; ", link,
    " shows the purchase's status.");
}

/** The landing message, if Stripe sent the buyer back; the query is then cleared so a reload does not repeat it. */
async function landing(): Promise<HTMLElement | null> {
  const query = new URLSearchParams(location.search);
  const outcome = query.get("checkout");
  if (outcome !== "success" && outcome !== "cancelled") return null;
  history.replaceState(null, "", location.pathname);
  if (outcome === "cancelled") return h("p", { class: "notice info", role: "status" }, "Checkout cancelled. You were not charged.");
  return returnedFromCheckout(query.get("session_id"));
}

/** The four credit packs; buying one opens Stripe's hosted checkout. Without Stripe they are shown, but not sold. */
export async function renderTopUp(root: HTMLElement, data: { packs: Pack[] }): Promise<void> {
  const [account, landed] = await Promise.all([call<AccountView>("GET", "/account"), landing()]);
  const status = h("div", { class: "form-status", "aria-live": "polite" });
  const buttons: HTMLButtonElement[] = [];
  const sellable = data.packs.some((p) => p.purchasable);

  const buy = async (pack: Pack) => {
    for (const button of buttons) button.disabled = true;
    status.replaceChildren(h("p", { class: "notice info", role: "status" }, `Opening the checkout for ${pack.name}…`));
    try {
      const { url } = await call<CheckoutStarted>("POST", "/checkout", { packId: pack.id });
      location.assign(url);
    } catch (error) {
      // 503: the pack cannot be sold here (no Stripe, or no price): say so rather than "contact support".
      const message = error instanceof ApiError && error.status === 503 ? UNAVAILABLE : error instanceof Error ? error.message : String(error);
      status.replaceChildren(h("p", { class: "notice error", role: "alert" }, message));
      for (const button of buttons) button.disabled = error instanceof ApiError && error.status === 503;
    }
  };

  const cards = data.packs.map((pack) => {
    const headingId = `pack-${pack.id}`;
    const action = pack.purchasable
      ? h("button", { type: "button", class: "button", onClick: () => void buy(pack) }, `Buy ${pack.name}`)
      : h("p", { class: "badge expired pack-unavailable" }, "Unavailable");
    if (action instanceof HTMLButtonElement) buttons.push(action);
    return h("li", {},
      h("article", { class: "card pack", "aria-labelledby": headingId },
        h("h2", { id: headingId }, pack.name),
        h("p", { class: "pack-price" }, money(pack.priceUsd)),
        h("p", {}, `${usd(pack.creditsUsd)} in credits`),
        action,
      ));
  });

  const automatic = h("section", { class: "card auto-topup", "aria-labelledby": "auto-topup-heading" });
  root.replaceChildren(
    ...(landed ? [landed] : []),
    h("p", {}, "Current balance: ", h("strong", {}, money(account.balanceUsd))),
    sellable
      ? h("p", { class: "muted" }, "You pay on Stripe's secure checkout page; the credits are added to your balance.")
      : h("p", { class: "notice info" }, UNAVAILABLE),
    status,
    h("ul", { class: "packs" }, cards),
    automatic,
  );
  await renderAutoTopup(automatic, data.packs);
  if (!automatic.hasChildNodes()) automatic.remove();
}
