import { breakable, h, hidden, uniqueId } from "../dom.ts";
import { actingFor } from "../env.ts";
import { count, money, utcMoment } from "../format.ts";
import { fitTable } from "../table-fit.ts";
import type { UsageEntryView } from "../wire.ts";

// The figures a person scans a list of requests by (when, which model and key, tokens, cost,
// status) are columns; the rest of a request (cached tokens, what caching saved, latency) is in
// its detail row, one click away. So the table keeps to a desktop's width with realistic names,
// and only a phone, where no table of this kind fits, shows a card per request.

const COLUMNS = ["Time (UTC)", "Model", "Key", "Member", "Prompt tokens", "Completion tokens", "Cost", "Status", "Details"];
const NUMERIC = new Set(["Prompt tokens", "Completion tokens", "Cost"]);
const columns = () => COLUMNS.filter((c) => c !== "Member" || actingFor !== null);

/**
 * A moment in UTC, as the filters' days are: its day (YYYY-MM-DD) and its time of day, each kept
 * whole, so that a narrow column breaks between them only.
 */
function moment(iso: string): HTMLElement {
  const [day, time] = utcMoment(iso);
  return h("time", { datetime: iso }, h("span", { class: "nowrap" }, day), " ", h("span", { class: "nowrap" }, time));
}

/** In an organization, who a row's key belongs to: a member, or the organization itself. */
function member(entry: UsageEntryView): HTMLElement | null {
  if (actingFor === null) return null;
  return h("td", { class: "identifier" }, entry.memberEmail === undefined ? "Organization" : breakable(entry.memberEmail));
}

const fact = (term: string, value: string | Node) => h("div", {}, h("dt", {}, term), h("dd", {}, value));

/** The request's other figures, in a row of its own under it, hidden until asked for. */
function detailRow(entry: UsageEntryView, id: string): HTMLElement {
  return h("tr", { class: "usage-detail", id, hidden: true },
    h("td", { colspan: columns().length },
      h("dl", { class: "facts" },
        fact("Cached tokens", count(entry.cachedTokens)),
        fact("Saved by caching", entry.cachedTokens === 0 ? "—" : money(entry.savedUsd)),
        fact("Latency", `${count(entry.latencyMs)} ms`),
        entry.error ? fact("Error", entry.error) : null,
      )));
}

/** A button that shows or hides the detail row `id`, saying which it does. */
function detailToggle(entry: UsageEntryView, id: string): HTMLElement {
  const button = h("button", { type: "button", class: "button secondary", "aria-expanded": "false", "aria-controls": id },
    "Details", hidden(` of the request at ${utcMoment(entry.createdAt).join(" ")}`));
  button.addEventListener("click", () => {
    const detail = document.getElementById(id)!;
    detail.hidden = !detail.hidden;
    button.setAttribute("aria-expanded", String(!detail.hidden));
  });
  return button;
}

// A request the key's allowlists refused is an error to the CSV, and a status of its own here.
const STATUS_TEXT: Record<string, string> = { success: "Success", error: "Error", refused: "Refused" };

function rows(entry: UsageEntryView): HTMLElement[] {
  const id = uniqueId("usage-detail");
  return [
    h("tr", {},
      h("td", {}, moment(entry.createdAt)),
      h("td", { class: "identifier" }, breakable(entry.model)),
      h("td", {}, entry.keyName ?? "—"),
      member(entry),
      h("td", { class: "num" }, count(entry.promptTokens)),
      h("td", { class: "num" }, count(entry.completionTokens)),
      h("td", { class: "num" }, money(entry.costUsd)),
      h("td", {},
        h("span", { class: `badge ${entry.status}` }, STATUS_TEXT[entry.status] ?? "Error"),
        entry.error ? h("span", { class: "muted error-reason" }, ` ${entry.error}`) : null,
      ),
      h("td", {}, detailToggle(entry, id)),
    ),
    detailRow(entry, id),
  ];
}

/** The latest requests as a table (a card per request where it does not fit), each with its detail row. */
export function usageTable(usage: UsageEntryView[]): HTMLElement {
  const element = h("table", { class: "usage" },
    h("caption", { id: "usage-caption" }, "Latest requests, newest first"),
    h("thead", {}, h("tr", {}, columns().map((c) => c === "Details"
      // The button says what the column holds: a card needs no name beside it.
      ? h("th", { scope: "col", "data-label": "" }, hidden(c))
      : h("th", { scope: "col", class: NUMERIC.has(c) ? "num" : undefined }, c)))),
    h("tbody", {}, usage.flatMap(rows)),
  );
  return fitTable(h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "usage-caption" }, element), element);
}
