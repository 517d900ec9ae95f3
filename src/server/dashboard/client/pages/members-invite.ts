import { call } from "../api.ts";
import { h, hidden } from "../dom.ts";
import { dateTime } from "../format.ts";
import { choice, field, form } from "../fields.ts";
import { confirmAction } from "../modal.ts";
import { roleWord } from "../org-switcher.ts";
import { fitTable } from "../table-fit.ts";
import type { InvitationView } from "../wire.ts";
import type { ActingFor } from "../../page-table.ts";
import { grantableRoles } from "./member-edit.ts";

type Say = (text: string, tone: "success" | "error") => void;

function invitationRow(org: ActingFor, invitation: InvitationView, redraw: (text: string) => Promise<void>): HTMLElement {
  const slot = h("div", {});
  const act = async (method: "POST" | "DELETE", path: string, done: string) => {
    try {
      await call(method, path);
      await redraw(done);
    } catch (error) {
      slot.replaceChildren(h("p", { class: "field-error", role: "alert" }, error instanceof Error ? error.message : String(error)));
    }
  };
  const base = `/orgs/${org.id}/invitations/${invitation.id}`;
  const resend = () => act("POST", `${base}/resend`, `Sent a new link to ${invitation.email}; the earlier one no longer works.`);
  const revoke = async () => {
    const confirmed = await confirmAction({ title: `Revoke the invitation to ${invitation.email}?`, body: "Its link stops working at once.", confirmLabel: "Revoke invitation" });
    if (confirmed) await act("DELETE", base, `Revoked the invitation to ${invitation.email}.`);
  };
  return h("tr", {},
    h("td", {}, invitation.email),
    h("td", {}, roleWord(invitation.role)),
    h("td", {}, dateTime(invitation.expiresAt)),
    h("td", {},
      h("div", { class: "row-actions" },
        h("button", { type: "button", class: "button secondary", onClick: () => void resend() }, "Resend", hidden(` to ${invitation.email}`)),
        h("button", { type: "button", class: "button danger", onClick: () => void revoke() }, "Revoke", hidden(` the invitation to ${invitation.email}`))),
      slot),
  );
}

function invitationsTable(org: ActingFor, invitations: InvitationView[], redraw: (text: string) => Promise<void>): HTMLElement {
  if (invitations.length === 0) return h("p", { class: "muted" }, "No invitations are waiting for an answer.");
  const table = h("table", {},
    h("caption", { id: "invitations-caption" }, "Invitations waiting for an answer"),
    h("thead", {}, h("tr", {}, ["E-mail", "Role", "Link expires", "Actions"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, invitations.map((i) => invitationRow(org, i, redraw))),
  );
  return fitTable(h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "invitations-caption" }, table), table);
}

/**
 * Inviting by e-mail with a role (the link is e-mailed, works once, for 7 days), and the
 * invitations waiting for an answer, each to resend (a new link, the old one dies) or revoke.
 */
export async function invitationsSection(root: HTMLElement, org: ActingFor, say: Say): Promise<void> {
  const pending = h("div", {});
  const redraw = async (text?: string) => {
    const { invitations } = await call<{ invitations: InvitationView[] }>("GET", `/orgs/${org.id}/invitations`);
    pending.replaceChildren(invitationsTable(org, invitations, async (t) => redraw(t)));
    if (text) say(text, "success");
  };
  const email = field({
    name: "email", label: "E-mail", type: "email", autocomplete: "off",
    validate: (v) => (/^\S+@\S+$/.test(v) ? null : "Enter an e-mail address, such as name@example.com"),
  });
  const role = choice({ name: "role", label: "Role", hint: "Owners and admins run the organization; members spend within their cap." }, grantableRoles(org), "member");
  const inviteForm = form({
    fields: [email, role],
    submitLabel: "Send invitation",
    labelledBy: "invite-heading",
    onSubmit: async () => {
      const sent = await call<InvitationView>("POST", `/orgs/${org.id}/invitations`, { email: email.value(), role: role.value() });
      email.input.value = "";
      await redraw();
      return `Sent an invitation to ${sent.email}. The link works for 7 days.`;
    },
  });
  root.replaceChildren(
    h("section", { class: "card", "aria-labelledby": "invite-heading" },
      h("h2", { id: "invite-heading" }, "Invite someone"),
      h("p", { class: "muted" }, "They accept with the e-mailed link, signed in with this address (confirmed)."),
      inviteForm),
    h("section", { "aria-labelledby": "pending-heading" }, h("h2", { id: "pending-heading" }, "Pending invitations"), pending),
  );
  await redraw();
}
