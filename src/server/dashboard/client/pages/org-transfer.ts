import { call } from "../api.ts";
import { h } from "../dom.ts";
import { field, form, optionalAmount } from "../fields.ts";
import { usdAsTyped, usd } from "../format.ts";
import type { ActingFor } from "../../page-table.ts";

const MAX_TRANSFER_USD = 1_000_000;

interface Transferred {
  usd: string;
  replayed: boolean;
  personalBalanceUsd: string;
  orgBalanceUsd: string;
}

/**
 * "Move credit in": from the person's own balance into the organization's, never back. Each
 * submission gets one idempotency key, so a double click (or a retried request) moves it once.
 */
export function transferCard(org: ActingFor, moved: (orgBalanceUsd: string) => void): HTMLElement {
  const amount = field({
    name: "usd", label: "Amount (USD)", inputMode: "decimal", hint: "Taken from your personal balance. It cannot be moved back.",
    validate: (v) => (v === "" ? "Enter an amount, such as 10" : optionalAmount("Amount", { min: 0, max: MAX_TRANSFER_USD, aboveMin: true })(v)),
  });
  const transferForm = form({
    fields: [amount],
    submitLabel: "Move credit in",
    labelledBy: "transfer-heading",
    onSubmit: async () => {
      // The key is made once per submission: the form's button is disabled while it is sent.
      const idempotencyKey = crypto.randomUUID();
      const done = await call<Transferred>("POST", `/orgs/${org.id}/transfers`, { usd: amount.value(), idempotencyKey });
      amount.input.value = "";
      moved(done.orgBalanceUsd);
      return `Moved ${usdAsTyped(done.usd)} into ${org.name}. Your personal balance is now ${usd(done.personalBalanceUsd)}.`;
    },
  });
  return h("section", { class: "card narrow", "aria-labelledby": "transfer-heading" },
    h("h2", { id: "transfer-heading" }, "Move credit in"),
    h("p", { class: "muted" }, `Add credit to ${org.name} from your personal balance.`),
    transferForm);
}
