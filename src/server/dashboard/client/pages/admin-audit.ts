import { call } from "../api.ts";
import { dataTable } from "../chart.ts";
import { h, uniqueId } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { eventDetail, eventName } from "../audit-words.ts";
import { dateTime } from "../format.ts";
import type { AdminAuditPage } from "../wire.ts";
import { consolePage } from "./console.ts";

/** The audit log of every account (or of one, `?email=`), newest first, 50 a page. */
export const renderAdminAudit = consolePage(async (root) => {
  const params = new URLSearchParams(location.search);
  const email = params.get("email") ?? "";
  const page = params.get("page") ?? "1";
  const log = await call<AdminAuditPage>("GET", `/admin/audit?${new URLSearchParams({ page, ...(email ? { email } : {}) })}`);
  const link = (n: number) => pageUrl("adminAudit", { ...(email ? { email } : {}), page: String(n) });
  const id = uniqueId("audit-email");
  root.replaceChildren(
    h("form", { class: "card", method: "get", action: pageUrl("adminAudit"), role: "search" },
      h("div", { class: "field" }, h("label", { for: id }, "Only this account (e-mail)"),
        h("input", { id, name: "email", type: "email", value: email, autocomplete: "off" })),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "button" }, "Show"),
        email ? h("a", { href: pageUrl("adminAudit"), class: "button secondary" }, "Every account") : null)),
    log.events.length === 0
      ? h("p", { class: "muted", role: "status" }, "No events.")
      : dataTable({
        caption: email ? `Events of ${email}, newest first` : "Events of every account, newest first",
        columns: ["Time", "Account", "Event", "IP", "Detail"],
        rows: log.events.map((e) => [
          h("time", { datetime: e.at }, dateTime(e.at)),
          e.email === null ? "—" : h("a", { href: pageUrl("adminAccounts", { email: e.email }) }, e.email),
          eventName(e.type), e.ip ?? "—", h("span", { class: "wrap" }, eventDetail(e.type, e.detail)),
        ]),
      }),
    h("nav", { class: "pager", "aria-label": "Audit log pages" },
      log.page > 1 ? h("a", { href: link(log.page - 1), rel: "prev" }, "← Newer") : null,
      h("span", { "aria-current": "page" }, `Page ${log.page}`),
      log.hasMore ? h("a", { href: link(log.page + 1), rel: "next" }, "Older →") : null),
  );
});
