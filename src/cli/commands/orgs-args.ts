// What the orgs commands share: the operator as the audit log names it, an organization named
// by id or name, a role flag, core's refusals as the CLI's errors, and a person who should be a member.
import type { Account } from "../../core/entities.ts";
import { isAppError } from "../../core/errors.ts";
import type { OrgActor, Organization } from "../../core/orgs/store.ts";
import { isRole, ROLES, type Role } from "../../core/orgs/roles.ts";
import type { Store } from "../../core/ports.ts";
import { parseEmail } from "../../core/accounts/sign-in.ts";
import { cliActor } from "../context.ts";
import { CliError } from "../output.ts";

/** The CLI acts as the operator, who acts on an organization as an owner would; the audit log names the machine's user. */
export const operator = (): OrgActor => ({ userId: null, label: cliActor(), ip: null });

/** An organization named by its id, or by its name (case aside) when exactly one has it. */
export async function requireOrg(store: Store, ref: string): Promise<Organization> {
  const byId = await store.findOrg(ref);
  if (byId) return byId;
  const named = (await store.listOrgs()).filter((org) => org.name.toLowerCase() === ref.toLowerCase());
  if (named.length === 1) return named[0] as Organization;
  if (named.length > 1) throw new CliError(`several organizations are named "${ref}" (${named.map((o) => o.id).join(", ")}): give its id`);
  throw new CliError(`no organization "${ref}" (see: gateway orgs list)`);
}

export function roleFlag(raw: string): Role {
  if (!isRole(raw)) throw new CliError(`--role must be one of ${ROLES.join(", ")} (got "${raw}")`);
  return raw;
}

/** Core's refusals (a bad name, the last owner) as the CLI's errors. */
export async function asCli<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error)) throw new CliError(error.message);
    throw error;
  }
}

/**
 * Why `email` is not a member the command can act on: a pending invitation is told apart from
 * nobody at all, with the command that ends it.
 */
export async function notAMember(store: Store, org: Organization, email: string): Promise<CliError> {
  const pending = (await store.listInvitations(org.id, Date.now())).find((i) => i.email === email);
  if (pending) {
    return new CliError(`${email} has a pending invitation to "${org.name}", not a membership; revoke it with: gateway orgs revoke-invitation ${org.id} --email ${email}`);
  }
  return new CliError(`${email} is not a member of "${org.name}" (see: gateway orgs members ${org.id})`);
}

/** The account with this e-mail, or why the command cannot act on it (an invitation, or no one). */
export async function requirePerson(store: Store, org: Organization, raw: string): Promise<Account> {
  const email = await asCli(async () => parseEmail(raw));
  const person = await store.findAccountByEmail(email);
  if (!person) throw await notAMember(store, org, email);
  return person;
}
