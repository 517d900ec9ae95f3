import { call } from "../api.ts";
import { h } from "../dom.ts";
import { actingFor, pageUrl } from "../env.ts";
import { plainNumber, usdAsTyped } from "../format.ts";
import { field, form, optionalAmount } from "../fields.ts";
import type { AccountView } from "../wire.ts";
import { renderWebhookSettings } from "./settings-webhook.ts";

// The spec's ranges; the server enforces the same.
const ALERT_THRESHOLD_MAX_USD = 100;
const SPEND_LIMIT_MAX_USD = 10_000;
const UNLIMITED = -1;

/** Who the low-balance e-mail goes to: the person, or an organization's first owner. */
const alertWho = (): string => actingFor === null
  ? "We send you an e-mail when your balance falls below this amount."
  : `We e-mail ${actingFor.name}'s first owner when its balance falls below this amount.`;

const section = (id: string, title: string, intro: string, body: Node) =>
  h("section", { class: "card", "aria-labelledby": id }, h("h2", { id }, title), h("p", { class: "muted" }, intro), body);

/** The low-balance alert threshold and the hourly spend safety limit. */
export async function renderSettings(root: HTMLElement): Promise<void> {
  const account = await call<AccountView>("GET", "/account");

  const threshold = field({
    name: "threshold", label: "Alert threshold (USD)", inputMode: "decimal", value: account.alertThreshold === null ? "" : plainNumber(account.alertThreshold),
    hint: `From 0 to ${ALERT_THRESHOLD_MAX_USD}. Leave empty to turn the alert off.`,
    validate: optionalAmount("Alert threshold", { min: 0, max: ALERT_THRESHOLD_MAX_USD }),
  });
  const alertForm = form({
    fields: [threshold],
    submitLabel: "Save alert",
    labelledBy: "alert-heading",
    onSubmit: async () => {
      const value = threshold.value() === "" ? null : Number(threshold.value());
      const saved = await call<{ threshold: number | null }>("PATCH", "/settings/alert-threshold", { threshold: value });
      return saved.threshold === null ? "Low-balance alerts are off." : `Saved. You get an e-mail when the balance falls below ${usdAsTyped(plainNumber(saved.threshold))}.`;
    },
  });

  const limit = field({
    name: "limit", label: "Hourly spend limit (USD)", inputMode: "decimal",
    value: account.spendSafetyLimit === UNLIMITED ? "" : plainNumber(account.spendSafetyLimit),
    hint: `From 0 to ${SPEND_LIMIT_MAX_USD.toLocaleString("en-US")}. Leave empty for no limit.`,
    // The API's -1 for no limit is its own notation, not a value the hint offers: empty says it here.
    validate: (v) => {
      const refused = optionalAmount("Hourly spend limit", { min: 0, max: SPEND_LIMIT_MAX_USD })(v);
      return refused === null ? null : `${refused}; leave it empty for no limit`;
    },
  });
  const limitForm = form({
    fields: [limit],
    submitLabel: "Save limit",
    labelledBy: "limit-heading",
    onSubmit: async () => {
      const value = limit.value() === "" ? UNLIMITED : Number(limit.value());
      const saved = await call<{ limit: number }>("PATCH", "/settings/spend-safety-limit", { limit: value });
      return saved.limit === UNLIMITED ? "Saved. There is no hourly spend limit." : `Saved. Requests are refused once ${usdAsTyped(plainNumber(saved.limit))} is spent in an hour.`;
    },
  });

  const webhook = h("section", { class: "card", "aria-labelledby": "webhook-heading" });
  root.replaceChildren(
    section("alert-heading", "Low-balance alert", alertWho(), alertForm),
    section("limit-heading", "Hourly spend safety limit", "Chat requests from all your keys are refused with 429 once this much has been spent in the last hour.", limitForm),
    webhook,
    section("security-link-heading", "Security", "Your password, the devices you are signed in on, two-factor sign-in and your account's activity.",
      h("a", { href: pageUrl("security"), class: "button secondary" }, "Open security settings")),
  );
  await renderWebhookSettings(webhook);
}
