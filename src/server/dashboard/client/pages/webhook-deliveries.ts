// The webhook's recent deliveries: each with what it sent (the signed body, shown as text) and a
// way to send it again, and a test event to try the endpoint with.
import { call } from "../api.ts";
import { h, hidden } from "../dom.ts";
import { dateTime } from "../format.ts";
import { fitTable } from "../table-fit.ts";

export interface Delivery {
  id: string;
  type: string;
  createdAt: string;
  attempts: number;
  sentAt: string | null;
  nextAttemptAt: string | null;
  answer: string | null;
  redelivery: boolean;
  payload: string;
}

const COLUMNS = ["Event", "Created", "State", "Attempts", "Receiver's answer", "Actions"];

/** One delivery's state in words: delivered, or when it is tried again. */
const deliveryState = (d: Delivery) =>
  d.sentAt !== null ? `Delivered ${dateTime(d.sentAt)}` : d.nextAttemptAt !== null ? `Retrying ${dateTime(d.nextAttemptAt)}` : "Queued";

/** The body indented to be read; as sent when it is not JSON (it always is). */
function readable(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

interface Section {
  say(text: string, tone: "success" | "error"): void;
  refresh(): Promise<void>;
}

/** Runs a button's call, saying what happened, and refreshes the list so the new delivery shows. */
async function act(section: Section, button: HTMLButtonElement, send: () => Promise<string>): Promise<void> {
  button.disabled = true;
  try {
    const said = await send();
    await section.refresh();
    section.say(said, "success");
  } catch (error) {
    section.say(error instanceof Error ? error.message : String(error), "error");
  } finally {
    button.disabled = false;
  }
}

function deliveryRows(section: Section, d: Delivery): HTMLElement[] {
  const of = ` of ${d.type} ${d.id}`;
  const redeliver = h("button", { type: "button", class: "button secondary" }, "Redeliver", hidden(of));
  redeliver.addEventListener("click", () => void act(section, redeliver, async () => {
    await call("POST", `/settings/webhook/deliveries/${encodeURIComponent(d.id)}/redeliver`);
    return `Event ${d.type} (${d.id}) queued again, with the same id and body.`;
  }));
  return [
    h("tr", {},
      h("td", {}, h("code", {}, d.type), d.redelivery ? h("span", { class: "muted" }, " (redelivery)") : ""),
      h("td", {}, dateTime(d.createdAt)),
      h("td", {}, deliveryState(d)),
      h("td", { class: "num" }, String(d.attempts)),
      h("td", { class: "detail" }, d.answer ?? "—"),
      h("td", {}, h("div", { class: "row-actions" }, redeliver)),
    ),
    // The body as text in a <pre>: event data is never markup.
    h("tr", { class: "delivery-payload" },
      h("td", { colspan: COLUMNS.length },
        h("details", {}, h("summary", {}, "Show payload", hidden(of)), h("pre", {}, readable(d.payload))))),
  ];
}

function deliveriesTable(section: Section, deliveries: Delivery[]): Node {
  if (deliveries.length === 0) return h("p", { class: "muted" }, "No events yet.");
  const table = h("table", {},
    h("caption", { class: "visually-hidden" }, "Recent webhook deliveries"),
    h("thead", {}, h("tr", {}, COLUMNS.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, deliveries.flatMap((d) => deliveryRows(section, d))),
  );
  return fitTable(h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "Recent webhook deliveries" }, table), table);
}

/** "Recent deliveries": the list, a test event when there is an endpoint, and what each button did. */
export function webhookDeliveries(deliveries: Delivery[], hasEndpoint: boolean): HTMLElement[] {
  const notices = h("div", { class: "form-status", "aria-live": "polite" });
  const list = h("div", {});
  const section: Section = {
    say: (text, tone) => notices.replaceChildren(h("p", { class: `notice ${tone}`, role: tone === "error" ? "alert" : "status" }, text)),
    refresh: async () => {
      list.replaceChildren(deliveriesTable(section, (await call<{ deliveries: Delivery[] }>("GET", "/settings/webhook")).deliveries));
    },
  };
  list.replaceChildren(deliveriesTable(section, deliveries));
  const test = h("button", { type: "button", class: "button secondary" }, "Send test event");
  test.addEventListener("click", () => void act(section, test, async () => {
    const sent = await call<{ id: string; type: string }>("POST", "/settings/webhook/test");
    return `Test event ${sent.id} queued: it is listed below with your receiver's answer.`;
  }));
  return [
    h("div", { class: "section-head deliveries-head" }, h("h3", {}, "Recent deliveries"), hasEndpoint ? test : ""),
    notices,
    list,
  ];
}
