import { ORG_PARAM, PAGES, isOrgOnly, isPageName } from "../page-table.ts";
import { call } from "./api.ts";
import { h } from "./dom.ts";
import { actingFor, basePath } from "./env.ts";
import { field, form } from "./fields.ts";
import { openModal } from "./modal.ts";

import type { MembershipView } from "./wire.ts";

type OrgSummary = MembershipView;

const ROLE_WORDS: Record<MembershipView["role"], string> = { owner: "Owner", admin: "Admin", member: "Member" };
export const roleWord = (role: MembershipView["role"]): string => ROLE_WORDS[role];
/** "an owner", "an admin", "a member": the role in a sentence. */
export const asRole = (role: MembershipView["role"]): string => (role === "member" ? "a member" : `an ${role}`);

/**
 * The address of this page acting for `orgId` (null: the personal account). A page that exists
 * only in an organization (Members) becomes the overview on the personal account; the page's
 * own query (filters, a page number) is left behind, since it named the other account's things.
 */
export function switchedUrl(orgId: string | null): string {
  const page = document.body.dataset.page;
  const name = isPageName(page) && !(orgId === null && isOrgOnly(page)) ? page : "overview";
  const path = basePath + PAGES[name].path;
  return orgId === null ? path : `${path}?${new URLSearchParams({ [ORG_PARAM]: orgId })}`;
}

/** Asks for a name, creates the organization (the person is its owner) and switches to it. */
export async function createOrg(): Promise<void> {
  const name = field({ name: "name", label: "Name", maxLength: 100, validate: (v) => (v === "" ? "Enter the organization's name" : null) });
  await openModal("New organization", (close, titleId) => [
    h("p", { class: "muted" }, "An organization has its own balance, keys and usage, shared by the people you invite. You are its owner."),
    form({
      fields: [name],
      submitLabel: "Create organization",
      labelledBy: titleId,
      actions: [h("button", { type: "button", class: "button secondary", onClick: () => close("cancel") }, "Cancel")],
      onSubmit: async () => {
        const created = await call<OrgSummary>("POST", "/orgs", { name: name.value() });
        close("created");
        location.assign(switchedUrl(created.id));
        return `Created ${created.name}. Opening it…`;
      },
    }),
  ]);
}

/** Closes the menu on Escape (focus back on its button) and on a click anywhere else. */
function closable(menu: HTMLDetailsElement): void {
  const summary = menu.querySelector("summary");
  menu.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !menu.open) return;
    menu.open = false;
    summary?.focus();
  });
  document.addEventListener("click", (event) => {
    if (menu.open && !menu.contains(event.target as Node)) menu.open = false;
  });
}

/**
 * The header's account switcher: a menu of links (the personal account, each organization with
 * the person's role there) and "New organization…". Links, not a <select>: moving through the
 * choices with the keyboard never opens another account by itself.
 */
export async function renderSwitcher(slot: HTMLElement): Promise<void> {
  const { organizations } = await call<{ organizations: OrgSummary[] }>("GET", "/orgs");
  const current = actingFor?.id ?? null;
  const item = (orgId: string | null, text: string) => h("li", {},
    h("a", { href: switchedUrl(orgId), "aria-current": orgId === current ? "true" : undefined }, text));
  const menu = h("details", { class: "account-menu" },
    h("summary", { class: "button secondary" },
      h("span", { class: "visually-hidden" }, "Account: "),
      // A name too long for the line gives way (an ellipsis), never the role beside it.
      h("span", { class: "account-name" }, actingFor?.name ?? "Personal"),
      actingFor ? h("span", { class: "account-role" }, ` (${roleWord(actingFor.role)})`) : null),
    h("ul", {},
      item(null, "Personal"),
      organizations.map((o) => item(o.id, `${o.name} (${roleWord(o.role)})`)),
      h("li", {}, h("button", {
        type: "button", class: "link-button",
        onClick: () => {
          menu.open = false;
          void createOrg();
        },
      }, "New organization…"))),
  );
  closable(menu);
  slot.replaceChildren(menu);
}
