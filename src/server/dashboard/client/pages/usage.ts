import { call } from "../api.ts";
import { h } from "../dom.ts";
import { basePath, pageUrl } from "../env.ts";
import { count, dateTime, usd } from "../format.ts";
import type { UsageEntryView, UsagePage } from "../wire.ts";

const COLUMNS = ["Time", "Model", "Key", "Prompt tokens", "Completion tokens", "Cost", "Latency", "Status"];
const NUMERIC = new Set(["Prompt tokens", "Completion tokens", "Cost", "Latency"]);

const row = (entry: UsageEntryView) =>
  h("tr", {},
    h("td", {}, h("time", { datetime: entry.createdAt }, dateTime(entry.createdAt))),
    h("td", {}, entry.model),
    h("td", {}, entry.keyName ?? "—"),
    h("td", { class: "num" }, count(entry.promptTokens)),
    h("td", { class: "num" }, count(entry.completionTokens)),
    h("td", { class: "num" }, usd(entry.costUsd)),
    h("td", { class: "num" }, `${count(entry.latencyMs)} ms`),
    h("td", {},
      h("span", { class: `badge ${entry.status}` }, entry.status === "success" ? "Success" : "Error"),
      entry.error ? h("span", { class: "muted error-reason" }, ` ${entry.error}`) : null,
    ),
  );

/** The latest requests, page by page (`?page=N`), and the CSV export of the latest 1,000. */
export async function renderUsage(root: HTMLElement): Promise<void> {
  const requested = new URLSearchParams(location.search).get("page");
  const result = await call<UsagePage>("GET", `/account/usage${requested === null ? "" : `?page=${encodeURIComponent(requested)}`}`);
  const { page, usage } = result;
  const pager = h("nav", { class: "pager", "aria-label": "Usage pages" },
    page > 1 ? h("a", { href: pageUrl("usage", { page: String(page - 1) }), rel: "prev" }, "← Newer") : null,
    h("span", { "aria-current": "page" }, `Page ${page}`),
    result.hasMore ? h("a", { href: pageUrl("usage", { page: String(page + 1) }), rel: "next" }, "Older →") : null,
  );
  root.replaceChildren(
    h("p", {}, h("a", { href: `${basePath}/usage/export`, class: "button secondary", download: "" }, "Download CSV (latest 1,000 requests)")),
    usage.length === 0
      ? h("p", { class: "muted" }, page === 1 ? "No requests yet. Requests made with your API keys appear here." : "No requests on this page.")
      : h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "usage-caption" },
        h("table", { class: "usage" },
          h("caption", { id: "usage-caption" }, "Latest requests, newest first"),
          h("thead", {}, h("tr", {}, COLUMNS.map((c) => h("th", { scope: "col", class: NUMERIC.has(c) ? "num" : undefined }, c)))),
          h("tbody", {}, usage.map(row)),
        )),
    pager,
  );
}
