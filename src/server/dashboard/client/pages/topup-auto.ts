import { call } from "../api.ts";
import { h } from "../dom.ts";
import { choice, field, form, optionalAmount } from "../fields.ts";
import { usd } from "../format.ts";

/** `GET /settings/auto-topup`, as the page reads it. */
interface AutoTopupView {
  enabled: boolean;
  packId: string | null;
  thresholdUsd: string | null;
  monthlyMaxUsd: string | null;
  cardSaved: boolean;
  card: { brand: string | null; last4: string | null } | null;
  inFlight: boolean;
}

interface PackChoice {
  id: string;
  name: string;
  priceUsd: string;
  purchasable: boolean;
}

const required = (label: string, max: number) => {
  const range = optionalAmount(label, { min: 0, max, aboveMin: true });
  return (value: string): string | null => (value === "" ? `${label} is required` : range(value));
};

/** How it stands, in a sentence: off, on and waiting for a card, or on with the card it charges. */
function stateLine(view: AutoTopupView): Node {
  if (!view.enabled) return h("p", {}, h("span", { class: "badge expired" }, "Off"), " Your balance is topped up only when you buy a pack.");
  const card = view.card
    ? `${view.card.brand ? view.card.brand[0]!.toUpperCase() + view.card.brand.slice(1) : "Card"} ending ${view.card.last4 ?? "····"}`
    : null;
  return h("p", {},
    h("span", { class: "badge success" }, "On"), " ",
    card === null
      ? "The card of your next purchase is saved for it: buy a pack below to finish setting it up."
      : `Charging your saved ${card}.`,
    view.inFlight ? h("span", { class: "muted" }, " A top-up is under way.") : "");
}

/**
 * The Top up page's automatic top-up: the pack bought when the balance falls below the
 * threshold, the most it may spend in a month, and the saved card; turned off, the card is forgotten.
 */
export async function renderAutoTopup(root: HTMLElement, packs: PackChoice[]): Promise<void> {
  const view = await call<AutoTopupView>("GET", "/settings/auto-topup");
  const sellable = packs.filter((p) => p.purchasable);
  if (sellable.length === 0) {
    root.replaceChildren();
    return;
  }
  const pack = choice(
    { name: "packId", label: "Pack to buy" },
    sellable.map((p) => [p.id, `${p.name}: ${usd(p.priceUsd)}`]),
    view.packId ?? sellable[0]!.id,
  );
  const threshold = field({
    name: "thresholdUsd", label: "When the balance falls below (USD)", value: view.thresholdUsd ?? "5.00", inputMode: "decimal",
    validate: required("The threshold", 10_000),
  });
  const monthlyMax = field({
    name: "monthlyMaxUsd", label: "Spend at most per month (USD)", value: view.monthlyMaxUsd ?? "100.00", inputMode: "decimal",
    hint: "Automatic top-ups stop for the rest of the calendar month (UTC) once the next one would pass this.",
    validate: required("The monthly maximum", 100_000),
  });
  const turnOff = h("button", {
    type: "button", class: "button danger", onClick: async () => {
      await call("DELETE", "/settings/auto-topup");
      await renderAutoTopup(root, packs);
    },
  }, "Turn off and forget the card");
  const settings = form({
    fields: [pack, threshold, monthlyMax],
    submitLabel: view.enabled ? "Save" : "Turn on",
    labelledBy: "auto-topup-heading",
    actions: view.enabled ? [turnOff] : [],
    onSubmit: async () => {
      await call("PUT", "/settings/auto-topup", { packId: pack.value(), thresholdUsd: threshold.value(), monthlyMaxUsd: monthlyMax.value() });
      await renderAutoTopup(root, packs);
    },
  });
  root.replaceChildren(
    h("h2", { id: "auto-topup-heading" }, "Automatic top-up"),
    stateLine(view),
    settings,
  );
}
