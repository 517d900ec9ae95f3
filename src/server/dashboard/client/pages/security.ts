import { call } from "../api.ts";
import { h } from "../dom.ts";
import { field, form } from "../fields.ts";
import type { SecurityView } from "../wire.ts";
import { actingFor, manages } from "../env.ts";
import { renderAuditLog } from "./security-audit.ts";
import { renderSessions } from "./security-sessions.ts";
import { renderTwoFactor } from "./security-totp.ts";
import { newPasswordFields } from "./password-fields.ts";

export const section = (id: string, title: string, ...body: (Node | string)[]) =>
  h("section", { class: "card", "aria-labelledby": id }, h("h2", { id }, title), ...body);

/** Settings → Security: the password, sessions, two-factor sign-in and the account's activity log. */
export async function renderSecurity(root: HTMLElement): Promise<void> {
  const security = await call<SecurityView>("GET", "/account/security");
  const current = field({ name: "currentPassword", label: "Current password", type: "password", autocomplete: "current-password",
    validate: (v) => (v === "" ? "Enter your current password" : null) });
  const next = newPasswordFields("newPassword", "New password");
  const passwordForm = form({
    fields: [current, ...next.fields],
    submitLabel: "Change password",
    labelledBy: "password-heading",
    onSubmit: async () => {
      await call("POST", "/auth/password/change", { currentPassword: current.value(), newPassword: next.value() });
      for (const f of [current, ...next.fields]) f.input.value = "";
      // The other devices' sessions ended with the change: the list says so at once.
      await renderSessions(sessions);
      return "Password changed. Every other device was signed out.";
    },
  });
  const sessions = h("div", {});
  const twoFactor = h("div", {});
  const audit = h("div", {});
  root.replaceChildren(
    section("password-heading", "Password", h("p", { class: "muted" }, "Changing it signs out every other device."), passwordForm),
    section("sessions-heading", "Where you are signed in", sessions),
    section("totp-heading", "Two-factor sign-in", twoFactor),
    // Acting for an organization, the activity log is the organization's: for its owners and admins.
    section("audit-heading", actingFor ? `Activity of ${actingFor.name}` : "Account activity", audit),
  );
  if (!manages()) audit.replaceChildren(h("p", { class: "notice info" }, `Only owners and admins of ${actingFor?.name ?? "this organization"} can see its activity log.`));
  await Promise.all([renderSessions(sessions), renderTwoFactor(twoFactor, security), manages() ? renderAuditLog(audit, 1) : null]);
}
