import { ORG_PARAM, PAGES, isOrgOnly, isPageName } from "../page-table.ts";
import { call } from "./api.ts";
import { h, uniqueId } from "./dom.ts";
import { actingFor, basePath } from "./env.ts";
import { field, form } from "./fields.ts";
import { openModal } from "./modal.ts";

import type { MembershipView } from "./wire.ts";

type OrgSummary = MembershipView;

const ROLE_WORDS: Record<MembershipView["role"], string> = { owner: "Owner", admin: "Admin", member: "Member" };
export const roleWord = (role: MembershipView["role"]): string => ROLE_WORDS[role];
/** "an owner", "an admin", "a member": the role in a sentence. */
export const asRole = (role: MembershipView["role"]): string => (role === "member" ? "a member" : `an ${role}`);

const NEW_ORG = "new";

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

/**
 * The header's account switcher: the personal account, each organization with the person's
 * role there, and "New organization…". Choosing one opens this page for it.
 */
export async function renderSwitcher(slot: HTMLElement): Promise<void> {
  const { organizations } = await call<{ organizations: OrgSummary[] }>("GET", "/orgs");
  const id = uniqueId("account-switcher");
  const current = actingFor?.id ?? "";
  const select = h("select", { id, name: "account" },
    h("option", { value: "", selected: current === "" }, "Personal"),
    organizations.map((o) => h("option", { value: o.id, selected: o.id === current }, `${o.name} (${roleWord(o.role)})`)),
    h("option", { value: NEW_ORG }, "New organization…"),
  );
  select.addEventListener("change", () => {
    if (select.value !== NEW_ORG) {
      location.assign(switchedUrl(select.value === "" ? null : select.value));
      return;
    }
    select.value = current;
    void createOrg();
  });
  slot.replaceChildren(h("label", { for: id, class: "visually-hidden" }, "Account"), select);
}
