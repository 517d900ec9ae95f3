import { call } from "../api.ts";
import { h, hidden } from "../dom.ts";
import { form } from "../fields.ts";
import { confirmAction, openModal } from "../modal.ts";
import type { KeyCreated, KeyList, KeyRotated, KeyView } from "../wire.ts";
import { keyCard, type KeyActions } from "./key-card.ts";
import { clientSetup } from "./key-clients.ts";
import { createKey, createManagementKey } from "./key-create.ts";
import { keyForm } from "./key-form.ts";
import { keyOwners } from "./key-owners.ts";
import { actingFor, manages } from "../env.ts";
import { showSecret } from "./key-secret.ts";

/** Clears every notice on the page: each action's own replaces what earlier ones said. */
const clearNotices = (root: HTMLElement) => {
  for (const status of root.querySelectorAll(".form-status")) status.replaceChildren();
};

interface KeysPage {
  root: HTMLElement;
  list: HTMLElement;
  say(text: string, tone: "success" | "error"): void;
  refresh(): Promise<void>;
  /** Fills a secret into the quickstart's snippets (null: back to the placeholder). */
  showKey(secret: string | null): void;
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
      // As a new key is: filled into the quickstart until put away (a management key is not used on /v1).
      if (!key.management) page.showKey(secret);
      // The replacement is the newest key, first in the list.
      showSecret(page.root, secret, () => {
        page.showKey(null);
        page.list.querySelector<HTMLElement>("h3")?.focus();
      });
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

/** Create, list, edit, rotate and revoke API keys, with how to use them. */
export async function renderKeys(root: HTMLElement): Promise<void> {
  const notices = h("div", { class: "form-status", "aria-live": "polite" });
  const list = h("div", {});
  const quickstart = clientSetup();

  // One notice at a time: a later action's replaces an earlier one's.
  const say = (text: string, tone: "success" | "error") => {
    clearNotices(root);
    notices.replaceChildren(h("p", { class: `notice ${tone}`, role: tone === "error" ? "alert" : "status" }, text));
  };

  const refresh = async () => {
    const [{ keys }, ownerOf] = await Promise.all([call<KeyList>("GET", "/keys/generate"), keyOwners()]);
    // Keys in use first, newest first as listed; revoked ones below them.
    const ordered = [...keys.filter((k) => k.status !== "revoked"), ...keys.filter((k) => k.status === "revoked")];
    list.replaceChildren(ordered.length === 0
      ? h("p", { class: "muted" }, "No keys yet. Create one with the button above.")
      : h("ul", { class: "key-list" }, ordered.map((key) => h("li", {}, keyCard(key, actions, ownerOf?.(key) ?? null)))));
  };
  const actions = keyActions({ root, list, say, refresh, showKey: quickstart.showKey });

  // A new key's secret is shown once, and filled into the quickstart until it is put away.
  const created = async (key: KeyCreated | null, opener: HTMLElement, filled: boolean) => {
    if (key === null) return;
    await refresh();
    say(`Created ${key.name}.`, "success");
    if (filled) quickstart.showKey(key.key);
    showSecret(root, key.key, () => {
      quickstart.showKey(null);
      opener.focus();
    });
  };
  const opener = (label: string, tone: string, make: () => Promise<KeyCreated | null>, filled: boolean) => {
    const button = h("button", { type: "button", class: `button ${tone}` }, label);
    button.addEventListener("click", async () => created(await make(), button, filled));
    return button;
  };

  root.replaceChildren(
    notices,
    h("section", { "aria-labelledby": "your-keys" },
      h("div", { class: "section-head" },
        h("h2", { id: "your-keys" }, actingFor && manages() ? `Keys of ${actingFor.name}` : "Your keys"),
        h("div", { class: "row-actions" },
          opener("Create key", "", createKey, true),
          // In an organization a management key is the organization's: for its owners and admins.
          manages() ? opener("Create management key", "secondary", createManagementKey, false) : null)),
      list),
    quickstart.element,
  );
  await refresh();
}
