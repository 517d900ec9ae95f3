import { call } from "../api.ts";
import { h } from "../dom.ts";
import { field, form } from "../fields.ts";
import { openModal } from "../modal.ts";
import type { KeyCreated } from "../wire.ts";
import { keyForm } from "./key-form.ts";
import { organizationKeyField } from "./key-owners.ts";

// The forms that make keys open from the keys page's buttons, in a dialog, so that the page
// opens on the keys themselves. Each resolves with the key made (its secret to show once), or
// null when the person cancelled.

const cancel = (close: (result: string) => void) =>
  h("button", { type: "button", class: "button secondary", onClick: () => close("cancel") }, "Cancel");

/** Asks for a new key's name, expiry, limits and allowlists (and, for a manager, whether the organization owns it), and makes it. */
export async function createKey(): Promise<KeyCreated | null> {
  let created: KeyCreated | null = null;
  const creation = keyForm();
  const organizationKey = organizationKeyField();
  await openModal("Create a key", (close, titleId) => [
    form({
      fields: organizationKey ? [...creation.fields, organizationKey] : creation.fields,
      submitLabel: "Create key",
      labelledBy: titleId,
      actions: [cancel(close)],
      onSubmit: async () => {
        const body = { ...creation.newKey(), ...(organizationKey?.input.checked ? { organizationKey: true } : {}) };
        created = await call<KeyCreated>("POST", "/keys/generate", body);
        close("created");
      },
    }),
  ]);
  return created;
}

/**
 * A management key for the account's own scripts: it creates, lists and revokes API keys and
 * reads spend through the account endpoints, and cannot call models or change the sign-in.
 */
export async function createManagementKey(): Promise<KeyCreated | null> {
  let created: KeyCreated | null = null;
  const name = field({ name: "name", label: "Used by", maxLength: 100, hint: "Optional: the script or server that will hold it, as the list shows it." });
  await openModal("Create a management key", (close, titleId) => [
    h("p", { class: "muted" },
      "For your own servers: send it as ", h("code", {}, "Authorization: Bearer gw-mgmt-…"),
      " to create, list and revoke API keys and read spend without signing in. It cannot call models, ",
      "create management keys, or change your password or two-factor sign-in."),
    form({
      fields: [name],
      submitLabel: "Create management key",
      labelledBy: titleId,
      actions: [cancel(close)],
      onSubmit: async () => {
        created = await call<KeyCreated>("POST", "/keys/generate", { management: true, ...(name.value() === "" ? {} : { name: name.value() }) });
        close("created");
      },
    }),
  ]);
  return created;
}
