// Management keys (gw-mgmt-…): what a script that manages an account's keys may do in place of
// a signed-in person. They act on the account endpoints only, and never on what proves who a
// person is (sign-in, password, 2FA) or on management keys themselves.
import { AppError, MESSAGES } from "../errors.ts";
import type { Account, ApiKey } from "../entities.ts";
import type { AccountStore, KeyManagementStore, ManagementKeyFound } from "../store.ts";
import { hashKey, keyStatus } from "./secret.ts";
import { assertManager, manages, type OrgAccess, type Role } from "../orgs/roles.ts";

/** Who calls an account endpoint: a session's account, or a management key's. */
export interface AccountCaller {
  account: Account | null;
  /** The management key the call is made with; null for a signed-in session. */
  managementKey: ApiKey | null;
  /** Acting for an organization (`?org=`, or a management key of one): then `account` is the organization's. */
  org?: OrgAccess | null;
}

/**
 * The account a management key acts for, or the account endpoints' 401: an unknown, revoked or
 * expired key, and an API key, are refused alike. The account's own state (banned, deleted) is
 * judged by the route, as a session's is.
 */
export async function managementKeyCaller(
  store: Pick<AccountStore, "getAccount"> & Pick<KeyManagementStore, "findManagementKey" | "markKeyUsed">,
  token: string,
  now: number,
): Promise<AccountCaller> {
  const found = await store.findManagementKey(hashKey(token));
  if (!found || found.key.kind !== "management" || keyStatus(found.key, now) !== "active") {
    throw new AppError("authentication_error", MESSAGES.unauthorized);
  }
  const role = found.org ? managementKeyRole(found) : null;
  if (found.org && role === null) throw new AppError("authentication_error", MESSAGES.unauthorized);
  // Listed like any key: when it was last used tells its owner whether a script still holds it.
  await store.markKeyUsed(found.key.id, now);
  const account = await store.getAccount(found.key.accountId);
  const org = found.org && role && { ...found.org, role, personId: null, personEmail: null };
  return { account, managementKey: found.key, org };
}

/**
 * The role an organization's management key acts with: its maker's at this moment, never more,
 * and only while that is a role that runs the organization (a maker demoted to member, or gone,
 * leaves a key that opens nothing; removal also revokes it). A key the operator made (the CLI,
 * no maker) acts as an admin. One made with a session but with no maker recorded (made before
 * makers were) cannot be judged, so it opens nothing: whoever made it may have left.
 */
export function managementKeyRole(found: Pick<ManagementKeyFound, "key" | "origin" | "makerRole">): Role | null {
  if (found.key.ownerId === null) return found.origin === "cli" ? "admin" : null;
  return found.makerRole !== null && manages(found.makerRole) ? found.makerRole : null;
}

/**
 * Who makes a management key while acting for an organization (owners and admins only): the
 * key is that person's, revoked with their other keys, and acts with their role at each use.
 */
export function managementKeyMaker(org: OrgAccess | null | undefined): string | null {
  if (!org) return null;
  assertManager(org);
  return org.personId;
}

/**
 * What only the person may read (the security log: sign-ins, their addresses, 2FA changes) is
 * no business of a script: a management key there is no sign-in, the endpoint's 401.
 */
export function assertPerson(caller: AccountCaller): void {
  if (caller.managementKey) throw new AppError("authentication_error", MESSAGES.unauthorized);
}

/** A script with a management key cannot make another one: a leaked key must not be able to outlive its revocation. */
export function assertMayIssue(caller: AccountCaller, kind: ApiKey["kind"]): void {
  if (caller.managementKey && kind === "management") {
    throw new AppError("permission_error", "A management key cannot create management keys");
  }
}

/**
 * The keys a caller sees and acts on: a management key's caller sees the account's API keys
 * only, and an organization's member only the keys it owns.
 */
export const visibleTo = (caller: AccountCaller) => (key: ApiKey): boolean =>
  (caller.managementKey === null || key.kind === "api") && (!caller.org || manages(caller.org.role) || key.ownerId === caller.org.personId);
