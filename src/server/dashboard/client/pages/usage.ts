import { ApiError, call } from "../api.ts";
import { h } from "../dom.ts";
import { basePath, manages, pageUrl, withOrg } from "../env.ts";
import { count, plural } from "../format.ts";
import type { ModelSpend, UsagePage } from "../wire.ts";
import { modelSpendChart } from "./model-spend-chart.ts";
import { currentFilters, filterForm } from "./usage-filters.ts";
import { usageTable } from "./usage-table.ts";

/** The CSV export's and the table's bound: the latest 1,000 requests. */
const EXPORT_LIMIT = 1_000;

/** How many requests match, and the CSV of them: the export takes the same filters as the table. */
function matchCount(matches: number, filters: Record<string, string>): HTMLElement {
  const filtered = Object.keys(filters).length > 0;
  const query = new URLSearchParams(filters).toString();
  const shown = matches > EXPORT_LIMIT ? `; the table and the CSV hold the latest ${count(EXPORT_LIMIT)}` : "";
  return h("div", { class: "actions match-count" },
    h("p", { role: "status" }, `${plural(matches, "request")} ${filtered ? (matches === 1 ? "matches" : "match") + " these filters" : "in all"}${shown}.`),
    // In an organization a member's CSV holds its own rows, as the table does.
    matches === 0 ? null : h("a", { href: basePath + withOrg(`/usage/export${query ? `?${query}` : ""}`), class: "button secondary", download: "" },
      filtered ? "Download CSV of these requests" : "Download CSV"),
  );
}

type Requests = { result: UsagePage } | { refused: string };

/** The page of requests the address asks for, or the server's refusal of its filters or page (a 400). */
async function requests(query: URLSearchParams): Promise<Requests> {
  try {
    return { result: await call<UsagePage>("GET", `/account/usage${query.size === 0 ? "" : `?${query}`}`) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return { refused: error.message };
    throw error;
  }
}

/** What stands in for the table when there are no rows to show, always with a way on. */
function emptyState(filters: Record<string, string>, page: number | null, refusal: string | null): HTMLElement {
  const firstPage = h("a", { href: pageUrl("usage", filters) }, "Go to the first page");
  if (refusal?.startsWith("page ")) return h("p", { class: "notice info" }, "There is no such page of requests. ", firstPage, ".");
  if (refusal !== null) return h("p", { class: "muted" }, "No requests are shown until the filters above are corrected.");
  if (page !== null && page > 1) return h("p", { class: "notice info" }, `There are no requests on page ${page}. `, firstPage, ".");
  return h("p", { class: "muted" }, Object.keys(filters).length > 0 ? "No requests match these filters." : "No requests yet. Requests made with your API keys appear here.");
}

/**
 * Spend per model over 30 days, then the latest requests page by page (`?page=N`), narrowed by
 * the filters in the address, and the CSV export of the latest 1,000. Filters or a page the
 * server refuses leave the filters on screen with the reason beside them and a way back.
 */
export async function renderUsage(root: HTMLElement): Promise<void> {
  const filters = currentFilters();
  const requested = new URLSearchParams(location.search).get("page");
  const query = new URLSearchParams({ ...filters, ...(requested === null ? {} : { page: requested }) });
  // Spend per model is the whole organization's: for its owners and admins.
  const [answer, spend] = await Promise.all([requests(query), manages() ? call<ModelSpend>("GET", "/account/spend/models?days=30") : null]);
  const refusal = "refused" in answer ? answer.refused : null;
  // A refused page is not the filters' fault: the form stays clean and the empty state offers page 1.
  const form = await filterForm(refusal === null || refusal.startsWith("page ") ? undefined : refusal);
  const page = "result" in answer ? answer.result.page : null;
  const usage = "result" in answer ? answer.result.usage : [];
  const pageLink = (n: number) => pageUrl("usage", { ...filters, page: String(n) });
  const pager = page === null ? null : h("nav", { class: "pager", "aria-label": "Usage pages" },
    page > 1 ? h("a", { href: pageLink(page - 1), rel: "prev" }, "← Newer") : null,
    h("span", { "aria-current": "page" }, `Page ${page}`),
    "result" in answer && answer.result.hasMore ? h("a", { href: pageLink(page + 1), rel: "next" }, "Older →") : null,
  );
  root.replaceChildren(
    spend === null ? "" : h("section", { class: "card", "aria-labelledby": "model-spend" }, h("h2", { id: "model-spend" }, "Spend per model, last 30 days"), modelSpendChart(spend)),
    form,
    "result" in answer ? matchCount(answer.result.matches, filters) : "",
    usage.length === 0 ? emptyState(filters, page, refusal) : usageTable(usage),
    pager ?? "",
  );
}
