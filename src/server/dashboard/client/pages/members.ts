import { call } from "../api.ts";
import { breakable, h, hidden } from "../dom.ts";
import { actingFor, manages, pageUrl } from "../env.ts";
import { dateTime, money } from "../format.ts";
import { confirmAction } from "../modal.ts";
import { asRole, createOrg, roleWord, switchedUrl } from "../org-switcher.ts";
import { fitTable } from "../table-fit.ts";
import type { MemberRemoved, MemberView } from "../wire.ts";
import type { ActingFor } from "../../page-table.ts";
import { editMember, refusalInWords } from "./member-edit.ts";
import { invitationsSection } from "./members-invite.ts";
import { orgSettingsCard } from "./org-settings.ts";

interface MembersPage {
  org: ActingFor;
  say(text: string, tone: "success" | "error"): void;
  refresh(): Promise<void>;
}

/** Today's spend said against the cap, in whole percent: for reading only, never for money. */
function shareOfCap(spent: string, cap: string): string {
  if (Number(cap) === 0) return "a cap of $0: no spending";
  const percent = Math.floor((Number(spent) / Number(cap)) * 100);
  return `${percent === 0 && Number(spent) > 0 ? "under 1%" : `${percent}%`} of the cap`;
}

const errorText = (error: unknown) => {
  const said = refusalInWords(error);
  return said instanceof Error ? said.message : String(said);
};

/** Whether the person may change `member`: owners anyone; admins members and admins, not owners nor itself. */
const mayChange = (page: MembersPage, member: MemberView) =>
  page.org.role === "owner" || (page.org.role === "admin" && member.role !== "owner" && member.userId !== page.org.personId);

/** Removes a member (or leaves, for oneself) after asking; says which keys were revoked with it. */
async function remove(page: MembersPage, member: MemberView, slot: HTMLElement): Promise<void> {
  const leaving = member.userId === page.org.personId;
  const confirmed = await confirmAction(leaving
    ? { title: `Leave ${page.org.name}?`, body: "Your keys in it are revoked at once and you lose access to it. Only an invitation brings you back.", confirmLabel: "Leave organization" }
    : { title: `Remove ${member.email}?`, body: "Their keys in this organization are revoked at once and their requests stop. Organization keys stay.", confirmLabel: "Remove member" });
  if (!confirmed) return;
  try {
    const removed = await call<MemberRemoved>("DELETE", `/orgs/${page.org.id}/members/${member.userId}`);
    if (leaving) {
      location.assign(switchedUrl(null));
      return;
    }
    const keys = removed.revokedKeys.map((k) => `${k.name} (${k.prefix}…)`);
    await page.refresh();
    page.say(`Removed ${member.email}. ${keys.length === 0 ? "They had no keys to revoke." : `Keys revoked: ${keys.join(", ")}.`}`, "success");
  } catch (error) {
    slot.replaceChildren(h("p", { class: "field-error", role: "alert" }, errorText(error)));
  }
}

/** Why the person is not offered to leave: the last owner cannot (the server would refuse it). */
const ONLY_OWNER = "You are its only owner: make another member an owner before you leave.";

function memberRow(page: MembersPage, member: MemberView, onlyOwner: boolean): HTMLElement {
  const slot = h("div", {});
  const self = member.userId === page.org.personId;
  const button = (label: string, tone: string, action: () => Promise<void>) =>
    h("button", { type: "button", class: `button ${tone}`, onClick: () => void action() }, label, hidden(` ${member.email}`));
  const edit = async () => {
    const said = await editMember(page.org, member);
    if (said === null) return;
    await page.refresh();
    page.say(said, "success");
  };
  const changeable = manages() && mayChange(page, member);
  const actions = [
    changeable ? button("Edit", "secondary", edit) : null,
    changeable && !self ? button("Remove", "danger", () => remove(page, member, slot)) : null,
    self && !onlyOwner ? button("Leave organization", "danger", () => remove(page, member, slot)) : null,
  ].filter((b) => b !== null);
  const why = self && onlyOwner ? h("p", { class: "muted why-not" }, ONLY_OWNER) : null;
  const cap = member.spendCapUsdPerDay;
  return h("tr", {},
    h("td", { class: "identifier" }, breakable(member.email), self ? " (you)" : ""),
    h("td", {}, roleWord(member.role)),
    h("td", { class: "num" }, cap === null ? "No cap" : money(cap)),
    h("td", { class: "num" }, money(member.spentTodayUsd), cap === null ? null : h("span", { class: "muted cap-share" }, shareOfCap(member.spentTodayUsd, cap))),
    h("td", {}, dateTime(member.joinedAt)),
    h("td", {}, actions.length === 0 && !why ? "—" : h("div", { class: "row-actions" }, actions), why, slot),
  );
}

function membersTable(page: MembersPage, members: MemberView[]): HTMLElement {
  const columns = ["E-mail", "Role", "Daily cap", "Spent today (UTC)", "Joined", "Actions"];
  const table = h("table", {},
    h("caption", { id: "members-caption" }, `Members of ${page.org.name}`),
    h("thead", {}, h("tr", {}, columns.map((c, i) => h("th", { scope: "col", class: i === 2 || i === 3 ? "num" : undefined }, c)))),
    h("tbody", {}, members.map((m) => memberRow(page, m, members.filter((o) => o.role === "owner").length === 1 && m.role === "owner"))),
  );
  return fitTable(h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "members-caption" }, table), table);
}

/** Without an organization: what the page is for, and how to get one. */
function noOrganization(root: HTMLElement): void {
  root.replaceChildren(h("section", { class: "card" },
    h("p", {}, "Members belong to an organization: one balance, spent by several people. Choose one in the account switcher at the top, or create one."),
    h("div", { class: "actions" }, h("button", { type: "button", class: "button", onClick: () => void createOrg() }, "New organization"))));
}

/**
 * An organization's members with their roles, daily caps and today's spend; owners and admins
 * change roles and caps, remove members and run invitations; everyone may leave.
 */
export async function renderMembers(root: HTMLElement): Promise<void> {
  const org = actingFor;
  if (org === null) return noOrganization(root);
  const notices = h("div", { class: "form-status", "aria-live": "polite" });
  const list = h("div", { class: "members-list" });
  const invitations = h("div", {});
  const page: MembersPage = {
    org,
    say: (text, tone) => notices.replaceChildren(h("p", { class: `notice ${tone}`, role: tone === "error" ? "alert" : "status" }, text)),
    refresh: async () => {
      const { members } = await call<{ members: MemberView[] }>("GET", `/orgs/${org.id}/members`);
      list.replaceChildren(membersTable(page, members));
    },
  };
  root.replaceChildren(
    h("p", { class: "muted" }, `You are ${asRole(org.role)} of ${org.name}. `,
      h("a", { href: pageUrl("keys") }, "Keys"), " and ", h("a", { href: pageUrl("usage") }, "usage"), " are on their own pages."),
    notices,
    list,
    invitations,
    // Apart from the tables above: a card of its own, with the page's usual gap.
    manages() ? h("div", { class: "section-gap" }, orgSettingsCard(org)) : "",
  );
  await page.refresh();
  if (manages()) await invitationsSection(invitations, org, page.say);
}
