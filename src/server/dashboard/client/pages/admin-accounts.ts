import { call } from "../api.ts";
import { dataTable } from "../chart.ts";
import { h, uniqueId } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { count, dateTime, money } from "../format.ts";
import type { AccountSearch } from "../wire.ts";
import { renderAccountDetail, stateBadge } from "./admin-account.ts";
import { consolePage } from "./console.ts";


/** The search form: an ordinary GET form, so a search is an address that can be bookmarked. */
function searchForm(query: string): HTMLFormElement {
  const id = uniqueId("account-search");
  return h("form", { class: "card", method: "get", action: pageUrl("adminAccounts"), role: "search" },
    h("div", { class: "field" },
      h("label", { for: id }, "Search accounts by e-mail"),
      h("input", { id, name: "q", type: "search", value: query, autocomplete: "off", maxlength: 200 })),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button" }, "Search")),
  );
}

/** Accounts matching the search, newest first, 50 a page, each a link to its page. */
async function renderSearch(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const q = params.get("q") ?? "";
  const page = params.get("page") ?? "1";
  const found = await call<AccountSearch>("GET", `/admin/accounts?${new URLSearchParams({ q, page })}`);
  const link = (n: number) => pageUrl("adminAccounts", { q, page: String(n) });
  root.replaceChildren(
    searchForm(q),
    found.accounts.length === 0
      ? h("p", { class: "muted", role: "status" }, q === "" ? "No accounts yet." : `No account's e-mail contains "${q}".`)
      : dataTable({
        caption: q === "" ? "Accounts, newest first" : `Accounts whose e-mail contains "${q}"`,
        columns: ["E-mail", "State", "Balance", "Reserved", "In flight", "Created"],
        numeric: [2, 3, 4],
        rows: found.accounts.map((a) => [
          h("a", { href: pageUrl("adminAccounts", { email: a.email }) }, a.email, a.admin ? " (operator)" : ""),
          stateBadge(a), money(a.balanceUsd), money(a.reservedUsd), count(a.inflight), dateTime(a.createdAt),
        ]),
      }),
    h("nav", { class: "pager", "aria-label": "Result pages" },
      found.page > 1 ? h("a", { href: link(found.page - 1), rel: "prev" }, "← Newer") : null,
      h("span", { "aria-current": "page" }, `Page ${found.page}`),
      found.hasMore ? h("a", { href: link(found.page + 1), rel: "next" }, "Older →") : null),
  );
}

/** `?email=` shows one account; otherwise the search. */
export const renderAdminAccounts = consolePage(async (root) => {
  const params = new URLSearchParams(location.search);
  const email = params.get("email");
  await (email === null ? renderSearch(root, params) : renderAccountDetail(root, email));
});
