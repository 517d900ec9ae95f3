import { call } from "../api.ts";
import { h } from "../dom.ts";
import { usd } from "../format.ts";
import type { AccountView, CheckoutStarted } from "../wire.ts";

interface Pack {
  id: string;
  name: string;
  priceUsd: string;
  creditsUsd: string;
}

// Stripe sends the buyer back here with ?checkout=success&session_id=… or ?checkout=cancelled.
const LANDINGS: Record<string, { text: string; tone: "success" | "info" }> = {
  success: {
    text: "Thank you! Your payment went through. The credits are added as soon as Stripe confirms it, usually within a minute.",
    tone: "success",
  },
  cancelled: { text: "Checkout cancelled. You were not charged.", tone: "info" },
};

/** The landing message, if Stripe sent the buyer back; the query is then cleared so a reload does not repeat it. */
function landing(): HTMLElement | null {
  const found = LANDINGS[new URLSearchParams(location.search).get("checkout") ?? ""];
  if (!found) return null;
  history.replaceState(null, "", location.pathname);
  return h("p", { class: `notice ${found.tone}`, role: "status" }, found.text);
}

/** The four credit packs; buying one opens Stripe's hosted checkout. */
export async function renderTopUp(root: HTMLElement, data: { packs: Pack[] }): Promise<void> {
  const account = await call<AccountView>("GET", "/account");
  const status = h("div", { class: "form-status", "aria-live": "polite" });
  const buttons: HTMLButtonElement[] = [];

  const buy = async (pack: Pack) => {
    for (const button of buttons) button.disabled = true;
    status.replaceChildren(h("p", { class: "notice info", role: "status" }, `Opening the checkout for ${pack.name}…`));
    try {
      const { url } = await call<CheckoutStarted>("POST", "/checkout", { packId: pack.id });
      location.assign(url);
    } catch (error) {
      status.replaceChildren(h("p", { class: "notice error", role: "alert" }, error instanceof Error ? error.message : String(error)));
      for (const button of buttons) button.disabled = false;
    }
  };

  const cards = data.packs.map((pack) => {
    const headingId = `pack-${pack.id}`;
    const button = h("button", { type: "button", class: "button", onClick: () => void buy(pack) }, `Buy ${pack.name}`);
    buttons.push(button);
    return h("li", {},
      h("article", { class: "card pack", "aria-labelledby": headingId },
        h("h2", { id: headingId }, pack.name),
        h("p", { class: "pack-price" }, usd(pack.priceUsd)),
        h("p", {}, `${usd(pack.creditsUsd)} in credits`),
        button,
      ));
  });

  const landed = landing();
  root.replaceChildren(
    ...(landed ? [landed] : []),
    h("p", {}, "Current balance: ", h("strong", {}, usd(account.balanceUsd))),
    h("p", { class: "muted" }, "You pay on Stripe's secure checkout page; the credits are added to your balance."),
    status,
    h("ul", { class: "packs" }, cards),
  );
}
