import { call } from "../api.ts";
import { h } from "../dom.ts";
import { field, form } from "../fields.ts";
import { showSecret } from "./key-secret.ts";
import { webhookDeliveries, type Delivery } from "./webhook-deliveries.ts";

interface WebhookView {
  url: string | null;
  deliveries: Delivery[];
}

const SECRET_WORDS = {
  label: "Your webhook signing secret",
  heading: "Copy your signing secret now",
  body: "Your receiver checks each event's x-gateway-signature header with it, as it would Stripe's. It is shown only this once; saving the endpoint again makes a new one.",
};

/** The account's webhook: its endpoint (set, replaced, removed) and what was delivered to it lately (webhook-deliveries.ts). */
export async function renderWebhookSettings(root: HTMLElement): Promise<void> {
  const view = await call<WebhookView>("GET", "/settings/webhook");
  const url = field({
    name: "url", label: "Endpoint URL", value: view.url ?? "",
    hint: "An https address of yours. Events: balance.low, key.limit_reached, key.revoked, purchase.completed, credits.granted.",
  });
  const endpointForm = form({
    fields: [url],
    submitLabel: view.url === null ? "Save endpoint" : "Save and make a new secret",
    labelledBy: "webhook-heading",
    onSubmit: async () => {
      const saved = await call<{ url: string; secret: string }>("PUT", "/settings/webhook", { url: url.value() });
      await renderWebhookSettings(root);
      showSecret(root, saved.secret, () => document.getElementById("webhook-heading")?.focus(), SECRET_WORDS);
      return `Saved. Events go to ${saved.url}.`;
    },
  });
  const remove = view.url === null ? null : h("button", {
    type: "button", class: "button danger", onClick: async () => {
      await call("DELETE", "/settings/webhook");
      await renderWebhookSettings(root);
    },
  }, "Remove endpoint");
  root.replaceChildren(
    h("h2", { id: "webhook-heading", tabindex: "-1" }, "Webhook"),
    h("p", { class: "muted" }, "We POST each event, signed, to your endpoint, and retry until it answers 2xx."),
    endpointForm,
    remove ? h("div", { class: "actions" }, remove) : "",
    ...webhookDeliveries(view.deliveries, view.url !== null),
  );
}
