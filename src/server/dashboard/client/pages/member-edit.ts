import { ApiError, call } from "../api.ts";
import { h } from "../dom.ts";
import { choice, field, form, optionalAmount } from "../fields.ts";
import { plainDecimal } from "../format.ts";
import { openModal } from "../modal.ts";
import type { MemberView } from "../wire.ts";
import type { ActingFor } from "../../page-table.ts";

const MAX_CAP_USD = 1_000_000;

/**
 * A refused change in words: the server's 403 says only "Forbidden". The 409 (the last owner)
 * and the rest already say what is wrong.
 */
export function refusalInWords(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 403) return error;
  return new ApiError(403, "Not allowed: an admin changes members and admins, but not owners nor itself, and only an owner makes owners.");
}

/** The roles `org`'s person may give: only an owner grants owner. */
export const grantableRoles = (org: ActingFor): [string, string][] => [
  ...(org.role === "owner" ? [["owner", "Owner"] as [string, string]] : []),
  ["admin", "Admin"], ["member", "Member"],
];

/**
 * Changes a member's role and daily spend cap (`PATCH /orgs/{id}/members/{userId}`), sending only
 * what changed; an empty cap is no cap (null). A refusal (403, 409 for the last owner) is shown in
 * the dialog, beside the field it concerns or above its buttons. Resolves to what was said, or null.
 */
export async function editMember(org: ActingFor, member: MemberView): Promise<string | null> {
  const role = choice({ name: "role", label: "Role" }, grantableRoles(org).some(([r]) => r === member.role)
    ? grantableRoles(org) : [[member.role, member.role], ...grantableRoles(org)], member.role);
  const cap = field({
    name: "spendCapUsdPerDay", label: "Daily spend cap (USD)", inputMode: "decimal", value: plainDecimal(member.spendCapUsdPerDay),
    hint: "What this member's keys may spend per UTC day, in all. Empty for no cap.",
    validate: optionalAmount("Daily spend cap", { min: 0, max: MAX_CAP_USD }),
  });
  let said: string | null = null;
  await openModal(`Edit ${member.email}`, (close, titleId) => [
    form({
      fields: [role, cap],
      submitLabel: "Save",
      labelledBy: titleId,
      actions: [h("button", { type: "button", class: "button secondary", onClick: () => close("cancel") }, "Cancel")],
      onSubmit: async () => {
        const change: Record<string, unknown> = {};
        if (role.value() !== member.role) change.role = role.value();
        if (cap.value() !== plainDecimal(member.spendCapUsdPerDay)) change.spendCapUsdPerDay = cap.value() === "" ? null : cap.value();
        if (Object.keys(change).length > 0) {
          await call("PATCH", `/orgs/${org.id}/members/${member.userId}`, change).catch((error: unknown) => {
            throw refusalInWords(error);
          });
        }
        said = `Saved the changes to ${member.email}.`;
        close("saved");
      },
    }),
  ]);
  return said;
}
