import { call } from "../api.ts";
import { h } from "../dom.ts";
import { dateTime } from "../format.ts";
import { field, form } from "../fields.ts";
import { fitTable } from "../table-fit.ts";
import { showSecret } from "./key-secret.ts";

interface WebhookView {
  url: string | null;
  deliveries: { id: string; type: string; createdAt: string; attempts: number; sentAt: string | null; nextAttemptAt: string | null; answer: string | null }[];
}

const SECRET_WORDS = {
  label: "Your webhook signing secret",
  heading: "Copy your signing secret now",
  body: "Your receiver checks each event's x-gateway-signature header with it, as it would Stripe's. It is shown only this once; saving the endpoint again makes a new one.",
};

/** One delivery's state in words: delivered, or when it is tried again. */
const deliveryState = (d: WebhookView["deliveries"][number]) =>
  d.sentAt !== null ? `Delivered ${dateTime(d.sentAt)}` : d.nextAttemptAt !== null ? `Retrying ${dateTime(d.nextAttemptAt)}` : "Queued";

function deliveriesTable(view: WebhookView): Node {
  if (view.deliveries.length === 0) return h("p", { class: "muted" }, "No events yet.");
  const table = h("table", {},
    h("caption", { class: "visually-hidden" }, "Recent webhook deliveries"),
    h("thead", {}, h("tr", {}, ["Event", "Created", "State", "Attempts", "Receiver's answer"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, view.deliveries.map((d) => h("tr", {},
      h("td", {}, h("code", {}, d.type)),
      h("td", {}, dateTime(d.createdAt)),
      h("td", {}, deliveryState(d)),
      h("td", { class: "num" }, String(d.attempts)),
      h("td", { class: "detail" }, d.answer ?? "—"),
    ))),
  );
  return fitTable(h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "Recent webhook deliveries" }, table), table);
}

/** The account's webhook: its endpoint (set, replaced, removed) and what was delivered to it lately. */
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
    h("h3", {}, "Recent deliveries"),
    deliveriesTable(view),
  );
}
