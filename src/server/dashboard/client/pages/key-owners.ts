import { call } from "../api.ts";
import { actingFor, manages } from "../env.ts";
import { checkbox, type Field } from "../fields.ts";
import type { KeyView, MemberView } from "../wire.ts";

/**
 * Who owns each key in an organization, in words: the member's e-mail (from the members list) or
 * "Organization" for a key no person owns. Null on a personal account, where the question does not arise.
 */
export async function keyOwners(): Promise<((key: KeyView) => string) | null> {
  if (actingFor === null) return null;
  const { members } = await call<{ members: MemberView[] }>("GET", `/orgs/${actingFor.id}/members`);
  const emails = new Map(members.map((m) => [m.userId, m.email]));
  // A key whose owner has left (and was revoked with it) is no longer in the list.
  return (key) => (key.ownerId === undefined ? "Organization" : emails.get(key.ownerId) ?? "A former member");
}

/** The "Organization key" box of the key form, for an organization's owners and admins; null elsewhere. */
export const organizationKeyField = (): (Field & { input: HTMLInputElement }) | null => (actingFor !== null && manages()
  ? checkbox({ name: "organizationKey", label: "Organization key", hint: "Owned by the organization, not by you: it stays when you leave." })
  : null);
