import { call } from "../api.ts";
import { h } from "../dom.ts";
import { dateTime, moneyInText } from "../format.ts";
import { fitTable } from "../table-fit.ts";
import type { AuditPageView } from "../wire.ts";

const EVENT_NAMES: Record<string, string> = {
  signup: "Account created", email_verified: "E-mail confirmed", login: "Signed in", login_failed: "Failed sign-in",
  password_changed: "Password changed", password_reset: "Password reset", session_ended: "Signed out",
  totp_enabled: "Two-factor sign-in on", totp_disabled: "Two-factor sign-in off", key_created: "API key created",
  key_rotated: "API key rotated", key_revoked: "API key revoked", credits_granted: "Credits granted",
  banned: "Account suspended", unbanned: "Suspension lifted",
};

/** The account's security events, newest first, 50 a page, as a table. */
export async function renderAuditLog(root: HTMLElement, page: number): Promise<void> {
  const log = await call<AuditPageView>("GET", `/account/audit?page=${page}`);
  const rows = log.events.map((e) => h("tr", {},
    h("td", {}, dateTime(e.at)),
    h("td", {}, EVENT_NAMES[e.type] ?? e.type),
    h("td", {}, e.ip ?? "—"),
    h("td", { class: "detail" }, moneyInText(e.detail ?? "")),
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
