// Who may do what in an organization. Everyone spends through keys and makes keys it owns;
// owners and admins run the organization (billing, settings, every key and usage, the audit
// log, members and invitations); only an owner grants or takes away `owner`.
import { AppError, MESSAGES } from "../errors.ts";

export const ROLES = ["owner", "admin", "member"] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => ROLES.includes(value as Role);

/** Owners and admins run the organization; members spend within their cap. */
export const manages = (role: Role): boolean => role !== "member";

/** Acting for an organization (`?org=`): which one, with which role, and the person acting (null for a management key). */
export interface OrgAccess {
  id: string;
  name: string;
  role: Role;
  personId: string | null;
  /** How the audit log names the person acting. */
  personEmail: string | null;
}

export const forbidden = (): AppError => new AppError("permission_error", MESSAGES.forbidden);

/** What only owners and admins may do; a personal account (no `org`) runs itself. */
export function assertManager(org: OrgAccess | null | undefined): void {
  if (org && !manages(org.role)) throw forbidden();
}

/** A membership as the rules see it. */
export interface MemberRef {
  userId: string;
  role: Role;
}

export interface MemberChange {
  role?: Role;
  /** The daily cap is set or cleared. */
  cap?: boolean;
  remove?: boolean;
}

/**
 * Whether `actor` may make `change` to `target`'s membership: 403 when its role may not. Anyone
 * may leave; an admin acts on members and admins but not on owners, nor on itself; only an
 * owner grants `owner`. That an organization keeps an owner is the store's to check, under its lock.
 */
export function memberChangeRefusal(actor: MemberRef, target: MemberRef, change: MemberChange): AppError | null {
  const self = actor.userId === target.userId;
  if (self && change.remove && change.role === undefined && !change.cap) return null;
  if (actor.role === "owner") return null;
  if (actor.role === "member") return forbidden();
  if (self || target.role === "owner" || change.role === "owner") return forbidden();
  return null;
}

/** May `actor` invite someone as `role`: owners and admins, and only owners invite owners. */
export function inviteRefusal(actor: Role, role: Role): AppError | null {
  if (!manages(actor)) return forbidden();
  if (role === "owner" && actor !== "owner") return forbidden();
  return null;
}

/**
 * Who owns a key made while acting for an organization: the person making it, or no one for an
 * organization key (`organizationKey: true`, owners and admins only; a management key's are
 * always the organization's). Null outside an organization.
 */
export function newKeyOwner(org: OrgAccess | null | undefined, organizationKey: unknown): string | null {
  if (!org) return null;
  if (organizationKey !== undefined && typeof organizationKey !== "boolean") {
    throw new AppError("invalid_request_error", "organizationKey must be true or false");
  }
  if (organizationKey === true || org.personId === null) {
    assertManager(org);
    return null;
  }
  return org.personId;
}

export const ORG_NOT_FOUND = "Organization not found";

export const LAST_OWNER = "An organization must keep an owner: make someone else an owner first";
