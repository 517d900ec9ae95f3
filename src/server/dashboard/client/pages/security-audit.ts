import { call } from "../api.ts";
import { h } from "../dom.ts";
import { eventDetail, eventName } from "../audit-words.ts";
import { dateTime } from "../format.ts";
import { fitTable } from "../table-fit.ts";
import type { AuditPageView } from "../wire.ts";

/** The account's security events, newest first, 50 a page, as a table. */
export async function renderAuditLog(root: HTMLElement, page: number): Promise<void> {
  const log = await call<AuditPageView>("GET", `/account/audit?page=${page}`);
  const rows = log.events.map((e) => h("tr", {},
    h("td", {}, dateTime(e.at)),
    h("td", {}, eventName(e.type)),
    h("td", {}, e.ip ?? "—"),
    h("td", { class: "detail" }, eventDetail(e.type, e.detail)),
  ));
  const pager = h("div", { class: "pager" },
    page > 1 ? h("button", { type: "button", class: "button secondary", onClick: () => void renderAuditLog(root, page - 1) }, "Newer events") : null,
    log.hasMore ? h("button", { type: "button", class: "button secondary", onClick: () => void renderAuditLog(root, page + 1) }, "Older events") : null,
  );
  const table = h("table", {},
    h("caption", { class: "visually-hidden" }, `Account activity, page ${page}`),
    h("thead", {}, h("tr", {}, ["When", "Event", "IP address", "Detail"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows),
  );
  root.replaceChildren(
    fitTable(h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "Account activity" }, table), table),
    log.events.length === 0 ? h("p", { class: "muted" }, "Nothing yet.") : "",
    pager,
  );
}
