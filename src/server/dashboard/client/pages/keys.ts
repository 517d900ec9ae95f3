import { call } from "../api.ts";
import { h, hidden } from "../dom.ts";
import { count, dateTime, money } from "../format.ts";
import { field, form } from "../fields.ts";
import { confirmAction, openModal } from "../modal.ts";
import type { KeyCreated, KeyList, KeyRotated, KeyView } from "../wire.ts";
import { clientSetup } from "./key-clients.ts";
import { keyForm } from "./key-form.ts";
import { keyOwners, organizationKeyField } from "./key-owners.ts";
import { actingFor, manages } from "../env.ts";
import { showSecret } from "./key-secret.ts";

const STATUS_TEXT: Record<string, string> = { active: "Active", revoked: "Revoked", expired: "Expired" };

const fact = (term: string, value: string | Node) => h("div", {}, h("dt", {}, term), h("dd", {}, value));
const limit = (value: string | null) => (value === null ? "None" : money(value));

interface KeyActions {
  edit(key: KeyView): Promise<void>;
  rotate(key: KeyView): Promise<void>;
  revoke(key: KeyView): Promise<void>;
}

/** One key's card: its facts and the actions its status allows. */
function keyCard(key: KeyView, actions: KeyActions, owner: string | null): HTMLElement {
  const headingId = `key-${key.id}`;
  const spending = key.management
    ? [fact("Kind", "Management key: manages this account's API keys; cannot call models")]
    : [
      fact("Lifetime credit limit", limit(key.creditLimitUsd)),
      fact("Spend limit per hour", limit(key.rateLimitUsdPerHour)),
      fact("Request limit per hour", key.rateLimitRequestsPerHour === null ? "None" : count(key.rateLimitRequestsPerHour)),
      fact("Models", key.allowedModels?.join(", ") ?? "Any"),
      fact("IP addresses", key.allowedIps?.join(", ") ?? "Any"),
      fact("Requests", count(key.total_requests)),
      fact("Spent", money(key.total_spend_usd)),
    ];
  const button = (label: string, action: (k: KeyView) => Promise<void>, tone = "secondary") =>
    h("button", { type: "button", class: `button ${tone}`, onClick: () => void action(key) }, label, hidden(` ${key.name}`));
  return h("article", { class: `card key status-${key.status}`, "aria-labelledby": headingId },
    h("div", { class: "key-head" },
      h("h3", { id: headingId, tabindex: "-1" }, key.name),
      key.rotated
        ? h("span", { class: "badge expired" }, "Rotated")
        : h("span", { class: `badge ${key.status}` }, STATUS_TEXT[key.status] ?? key.status),
      key.management ? h("span", { class: "badge management" }, "Management") : null,
    ),
    h("dl", { class: "facts" },
      fact("Key", h("code", {}, `${key.prefix}…`)),
      owner === null ? null : fact("Owner", owner),
      fact("Created", dateTime(key.createdAt)),
      fact("Last used", key.lastUsedAt === null ? "Never" : dateTime(key.lastUsedAt)),
      fact("Expires", key.expiresAt === null ? "Never" : dateTime(key.expiresAt)),
      ...spending,
    ),
    h("div", { class: "actions" },
      // A revoked key can never be used again: nothing about it is worth editing.
      key.management || key.status === "revoked" ? null : button("Edit", actions.edit),
      // The server refuses to rotate a revoked or expired key, and to revoke a revoked one.
      key.status === "active" ? button("Rotate", actions.rotate) : null,
      key.status !== "revoked" ? button("Revoke", actions.revoke, "danger") : null,
    ),
  );
}

/** Clears every notice on the page: each action's own replaces what earlier ones said. */
const clearNotices = (root: HTMLElement) => {
  for (const status of root.querySelectorAll(".form-status")) status.replaceChildren();
};

interface KeysPage {
  root: HTMLElement;
  list: HTMLElement;
  say(text: string, tone: "success" | "error"): void;
  refresh(): Promise<void>;
}

/** Edit, rotate and revoke; the list is drawn anew after every change and the focus goes to the key acted on. */
function keyActions(page: KeysPage): KeyActions {
  const { say, refresh } = page;
  const focusKey = (id: string) => document.getElementById(`key-${id}`)?.focus();

  // Rotating and revoking cannot be undone: both ask first, then act and say how it went.
  const afterConfirming = async (question: Parameters<typeof confirmAction>[0], act: () => Promise<void>) => {
    if (!(await confirmAction(question))) return;
    try {
      await act();
    } catch (error) {
      say(error instanceof Error ? error.message : String(error), "error");
    }
  };

  return {
    edit: async (key) => {
      const fields = keyForm(key);
      await openModal(`Edit ${key.name}`, (close, titleId) => [
        form({
          fields: fields.fields,
          submitLabel: "Save changes",
          labelledBy: titleId,
          actions: [h("button", { type: "button", class: "button secondary", onClick: () => close("cancel") }, "Cancel")],
          onSubmit: async () => {
            const changes = fields.changes();
            if (Object.keys(changes).length > 0) await call("PATCH", `/keys/${key.id}`, changes);
            close("saved");
            // The list first: whoever reads the notice then sees the saved values.
            await refresh();
            say(`Saved the changes to ${changes.name ?? key.name}.`, "success");
            focusKey(key.id);
          },
        }),
      ]);
    },
    rotate: (key) => afterConfirming({
      title: `Rotate ${key.name}?`,
      body: "The current key stops working at once and a new key with the same name, expiry and limits replaces it. Update every program that uses it.",
      confirmLabel: "Rotate key",
    }, async () => {
      const { key: secret } = await call<KeyRotated>("POST", `/keys/${key.id}/rotate`);
      await refresh();
      say(`Rotated ${key.name}. The old key no longer works.`, "success");
      // The replacement is the newest key, first in the list.
      showSecret(page.root, secret, () => page.list.querySelector<HTMLElement>("h3")?.focus());
    }),
    revoke: (key) => afterConfirming({
      title: `Revoke ${key.name}?`,
      body: "The key stops working at once, for every request. This cannot be undone.",
      confirmLabel: "Revoke key",
    }, async () => {
      await call("DELETE", `/keys/${key.id}/revoke`);
      await refresh();
      say(`Revoked ${key.name}.`, "success");
      focusKey(key.id);
    }),
  };
}

/**
 * A management key for the account's own scripts: it creates, lists and revokes API keys and
 * reads spend through the account endpoints, and cannot call models or change the sign-in.
 */
function managementKeyCard(root: HTMLElement, refresh: () => Promise<void>): HTMLElement {
  const heading = h("h2", { id: "create-management-key", tabindex: "-1" }, "Create a management key");
  const name = field({ name: "name", label: "Used by", maxLength: 100, hint: "Optional: the script or server that will hold it, as the list shows it." });
  const managementForm = form({
    fields: [name],
    submitLabel: "Create management key",
    labelledBy: heading.id,
    onSubmit: async () => {
      const body = { management: true, ...(name.value() === "" ? {} : { name: name.value() }) };
      const created = await call<KeyCreated>("POST", "/keys/generate", body);
      managementForm.reset();
      clearNotices(root);
      await refresh();
      showSecret(root, created.key, () => heading.focus());
      return `Created the management key ${created.name}.`;
    },
  });
  return h("section", { class: "card", "aria-labelledby": heading.id }, heading,
    h("p", { class: "muted" },
      "For your own servers: send it as ", h("code", {}, "Authorization: Bearer gw-mgmt-…"),
      " to create, list and revoke API keys and read spend without signing in. It cannot call models, ",
      "create management keys, or change your password or two-factor sign-in."),
    managementForm);
}

/** Create, list, edit, rotate and revoke API keys. */
export async function renderKeys(root: HTMLElement): Promise<void> {
  const notices = h("div", { class: "form-status", "aria-live": "polite" });
  const list = h("div", {});
  const createHeading = h("h2", { id: "create-key", tabindex: "-1" }, "Create a key");

  // One notice at a time: a later action's replaces an earlier one's, the create forms' included.
  const say = (text: string, tone: "success" | "error") => {
    clearNotices(root);
    notices.replaceChildren(h("p", { class: `notice ${tone}`, role: tone === "error" ? "alert" : "status" }, text));
  };

  const refresh = async () => {
    const [{ keys }, ownerOf] = await Promise.all([call<KeyList>("GET", "/keys/generate"), keyOwners()]);
    // Keys in use first, newest first as listed; revoked ones below them.
    const ordered = [...keys.filter((k) => k.status !== "revoked"), ...keys.filter((k) => k.status === "revoked")];
    list.replaceChildren(ordered.length === 0
      ? h("p", { class: "muted" }, "No keys yet. Create one above.")
      : h("ul", { class: "key-list" }, ordered.map((key) => h("li", {}, keyCard(key, actions, ownerOf?.(key) ?? null)))));
  };
  const actions = keyActions({ root, list, say, refresh });

  const creation = keyForm();
  const organizationKey = organizationKeyField();
  const createForm = form({
    fields: organizationKey ? [...creation.fields, organizationKey] : creation.fields,
    submitLabel: "Create key",
    labelledBy: createHeading.id,
    onSubmit: async () => {
      const body = { ...creation.newKey(), ...(organizationKey?.input.checked ? { organizationKey: true } : {}) };
      const created = await call<KeyCreated>("POST", "/keys/generate", body);
      createForm.reset();
      clearNotices(root);
      await refresh();
      showSecret(root, created.key, () => createHeading.focus());
      return `Created ${created.name}.`;
    },
  });

  root.replaceChildren(
    h("section", { class: "card", "aria-labelledby": createHeading.id }, createHeading, createForm),
    // In an organization a management key is the organization's: for its owners and admins.
    manages() ? managementKeyCard(root, refresh) : "",
    notices,
    h("section", { "aria-labelledby": "your-keys" }, h("h2", { id: "your-keys" }, actingFor && manages() ? `Keys of ${actingFor.name}` : "Your keys"), list),
    clientSetup(),
  );
  await refresh();
}
