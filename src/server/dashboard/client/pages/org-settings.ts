import { call } from "../api.ts";
import { h } from "../dom.ts";
import { field, form } from "../fields.ts";
import { confirmAction } from "../modal.ts";
import { switchedUrl } from "../org-switcher.ts";
import type { ActingFor } from "../../page-table.ts";

/** Deletes the organization after asking; the server refuses (409) while it has a balance or a request in flight. */
function deleteButton(org: ActingFor): HTMLElement {
  const slot = h("div", {});
  const button = h("button", { type: "button", class: "button danger" }, "Delete organization");
  button.addEventListener("click", async () => {
    const confirmed = await confirmAction({
      title: `Delete ${org.name}?`,
      body: "Its members lose access and every key in it stops working. Only an organization with a zero balance can be deleted.",
      confirmLabel: "Delete organization",
    });
    if (!confirmed) return;
    try {
      await call("DELETE", `/orgs/${org.id}`);
      location.assign(switchedUrl(null));
    } catch (error) {
      slot.replaceChildren(h("p", { class: "field-error", role: "alert" }, (error as Error).message));
    }
  });
  return h("div", { class: "actions" }, button, slot);
}

/** The organization's name, for its owners and admins to change, and (owners only) deleting it. */
export function orgSettingsCard(org: ActingFor): HTMLElement {
  const name = field({ name: "name", label: "Name", value: org.name, maxLength: 100, validate: (v) => (v === "" ? "Enter the organization's name" : null) });
  const renameForm = form({
    fields: [name],
    submitLabel: "Rename",
    labelledBy: "org-settings-heading",
    onSubmit: async () => {
      const renamed = await call<{ name: string }>("PATCH", `/orgs/${org.id}`, { name: name.value() });
      // The header and the navigation carry the name: the page is drawn again with it.
      location.reload();
      return `Renamed to ${renamed.name}.`;
    },
  });
  return h("section", { class: "card", "aria-labelledby": "org-settings-heading" },
    h("h2", { id: "org-settings-heading" }, "Organization"),
    renameForm,
    org.role === "owner" ? deleteButton(org) : null);
}
