import { call } from "../api.ts";
import { dataTable } from "../chart.ts";
import { h, hidden } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { count, dateTime, money } from "../format.ts";
import { confirmAction } from "../modal.ts";
import { roleWord } from "../org-switcher.ts";
import type { MemberView } from "../wire.ts";
import { consolePage } from "./console.ts";

interface AdminOrg {
  id: string;
  name: string;
  members: number;
  balanceUsd: string;
  createdAt: string;
}

/** Every organization, with its members' count and balance, each a link to its page. */
async function renderList(root: HTMLElement): Promise<void> {
  const { organizations } = await call<{ organizations: AdminOrg[] }>("GET", "/admin/orgs");
  root.replaceChildren(organizations.length === 0
    ? h("p", { class: "muted", role: "status" }, "No organizations yet.")
    : dataTable({
      caption: "Organizations",
      columns: ["Name", "Members", "Balance", "Created"],
      numeric: [1, 2],
      rows: organizations.map((o) => [
        h("a", { href: pageUrl("adminOrgs", { id: o.id }) }, o.name), count(o.members), money(o.balanceUsd), dateTime(o.createdAt),
      ]),
    }));
}

/** One organization's members; the operator may make any of them an owner (after confirming). */
async function renderDetail(root: HTMLElement, id: string, notice?: { text: string; tone: "success" | "error" }): Promise<void> {
  const org = await call<{ id: string; name: string; members: MemberView[] }>("GET", `/admin/orgs/${encodeURIComponent(id)}`);
  const makeOwner = async (member: MemberView) => {
    const confirmed = await confirmAction({
      title: `Make ${member.email} an owner of ${org.name}?`,
      body: "An owner runs the organization: billing, keys, members and other owners. The audit log records that you did it.",
      confirmLabel: "Make owner",
    });
    if (!confirmed) return;
    try {
      await call("POST", `/admin/orgs/${encodeURIComponent(id)}/owners`, { email: member.email });
      await renderDetail(root, id, { text: `${member.email} is now an owner of ${org.name}.`, tone: "success" });
    } catch (error) {
      await renderDetail(root, id, { text: `${member.email} was not made an owner: ${(error as Error).message}`, tone: "error" });
    }
  };
  root.replaceChildren(
    h("p", {}, h("a", { href: pageUrl("adminOrgs") }, "← All organizations")),
    h("div", { class: "form-status", "aria-live": "polite" },
      notice ? h("p", { class: `notice ${notice.tone}`, role: notice.tone === "error" ? "alert" : "status" }, notice.text) : null),
    h("h2", { id: "org-heading", tabindex: "-1" }, org.name),
    dataTable({
      caption: `Members of ${org.name}`,
      columns: ["E-mail", "Role", "Daily cap", "Spent today", "Joined", ""],
      numeric: [2, 3],
      rows: org.members.map((m) => [
        h("a", { href: pageUrl("adminAccounts", { email: m.email }) }, m.email), roleWord(m.role),
        m.spendCapUsdPerDay === null ? "No cap" : money(m.spendCapUsdPerDay), money(m.spentTodayUsd), dateTime(m.joinedAt),
        m.role === "owner" ? "—" : h("button", { type: "button", class: "button secondary", onClick: () => void makeOwner(m) }, "Make owner", hidden(` ${m.email}`)),
      ]),
    }),
  );
  document.title = `${org.name} · Organizations · Gateway`;
}

/** `?id=` shows one organization; otherwise the list. */
export const renderAdminOrgs = consolePage(async (root) => {
  const id = new URLSearchParams(location.search).get("id");
  await (id === null ? renderList(root) : renderDetail(root, id));
});
