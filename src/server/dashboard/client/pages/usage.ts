import { call } from "../api.ts";
import { h } from "../dom.ts";
import { basePath, pageUrl } from "../env.ts";
import { count, dateTime, usd } from "../format.ts";
import type { ModelSpend, UsageEntryView, UsagePage } from "../wire.ts";
import { modelSpendChart } from "./model-spend-chart.ts";
import { currentFilters, filterForm } from "./usage-filters.ts";

const COLUMNS = ["Time", "Model", "Key", "Prompt tokens", "Cached", "Completion tokens", "Cost", "Saved by caching", "Latency", "Status"];
const NUMERIC = new Set(["Prompt tokens", "Cached", "Completion tokens", "Cost", "Saved by caching", "Latency"]);

const row = (entry: UsageEntryView) =>
  h("tr", {},
    h("td", {}, h("time", { datetime: entry.createdAt }, dateTime(entry.createdAt))),
    h("td", {}, entry.model),
    h("td", {}, entry.keyName ?? "—"),
    h("td", { class: "num" }, count(entry.promptTokens)),
    h("td", { class: "num" }, count(entry.cachedTokens)),
    h("td", { class: "num" }, count(entry.completionTokens)),
    h("td", { class: "num" }, usd(entry.costUsd)),
    h("td", { class: "num" }, entry.cachedTokens === 0 ? "—" : usd(entry.savedUsd)),
    h("td", { class: "num" }, `${count(entry.latencyMs)} ms`),
    h("td", {},
      h("span", { class: `badge ${entry.status}` }, entry.status === "success" ? "Success" : "Error"),
      entry.error ? h("span", { class: "muted error-reason" }, ` ${entry.error}`) : null,
    ),
  );

/**
 * Spend per model over 30 days, then the latest requests page by page (`?page=N`), narrowed by
 * the filters in the address, and the CSV export of the latest 1,000.
 */
export async function renderUsage(root: HTMLElement): Promise<void> {
  const filters = currentFilters();
  const requested = new URLSearchParams(location.search).get("page");
  const query = new URLSearchParams({ ...filters, ...(requested === null ? {} : { page: requested }) });
  const [result, spend, form] = await Promise.all([
    call<UsagePage>("GET", `/account/usage${query.size === 0 ? "" : `?${query}`}`),
    call<ModelSpend>("GET", "/account/spend/models?days=30"),
    filterForm(),
  ]);
  const { page, usage } = result;
  const pageLink = (n: number) => pageUrl("usage", { ...filters, page: String(n) });
  const pager = h("nav", { class: "pager", "aria-label": "Usage pages" },
    page > 1 ? h("a", { href: pageLink(page - 1), rel: "prev" }, "← Newer") : null,
    h("span", { "aria-current": "page" }, `Page ${page}`),
    result.hasMore ? h("a", { href: pageLink(page + 1), rel: "next" }, "Older →") : null,
  );
  const filtered = Object.keys(filters).length > 0;
  root.replaceChildren(
    h("section", { class: "card", "aria-labelledby": "model-spend" }, h("h2", { id: "model-spend" }, "Spend per model, last 30 days"), modelSpendChart(spend)),
    h("p", {}, h("a", { href: `${basePath}/usage/export`, class: "button secondary", download: "" }, "Download CSV (latest 1,000 requests)")),
    form,
    usage.length === 0
      ? h("p", { class: "muted" }, filtered ? "No requests match these filters." : page === 1 ? "No requests yet. Requests made with your API keys appear here." : "No requests on this page.")
      : h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "usage-caption" },
        h("table", { class: "usage" },
          h("caption", { id: "usage-caption" }, "Latest requests, newest first"),
          h("thead", {}, h("tr", {}, COLUMNS.map((c) => h("th", { scope: "col", class: NUMERIC.has(c) ? "num" : undefined }, c)))),
          h("tbody", {}, usage.map(row)),
        )),
    pager,
  );
}
