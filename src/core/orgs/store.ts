// The organizations' port: each method is one transaction, audited where it changes something
// (src/db/store/orgs implements it for both dialects).
import type { ApiKey } from "../entities.ts";
import type { Nanos } from "../money.ts";
import type { QueuedMail } from "../accounts/store.ts";
import type { SendLimit, SendLimited } from "./invitation-limits.ts";
import type { Role } from "./roles.ts";

export interface Organization {
  id: string;
  name: string;
  createdAt: number;
}

export interface Membership {
  org: Organization;
  role: Role;
  spendCapPerDay: Nanos | null;
  joinedAt: number;
}

export interface Member {
  userId: string;
  email: string;
  role: Role;
  spendCapPerDay: Nanos | null;
  /** Settled today (UTC) plus what the member's requests in flight hold. */
  spentToday: Nanos;
  joinedAt: number;
}

export interface Invitation {
  id: string;
  orgId: string;
  email: string;
  role: Role;
  createdAt: number;
  expiresAt: number;
  acceptedAt: number | null;
  revokedAt: number | null;
}

/** Who acted, for the audit log. */
export interface OrgActor {
  /** The person acting; null for the operator (the CLI), who acts as an owner would. */
  userId: string | null;
  /** How the audit log names the actor: the person's e-mail, or the management key's name. */
  label: string;
  ip: string | null;
}

export type MemberOutcome<T> = { ok: T } | { refused: "not_found" | "last_owner" | "forbidden" };

export interface OrgStore {
  /** The organization, its account (placeholder e-mail) and its first owner's membership. */
  createOrg(input: { name: string; owner: string; actor: OrgActor; now: number }): Promise<Organization>;
  /** The person's memberships, oldest first. */
  listMemberships(userId: string): Promise<Membership[]>;
  /** The person's membership of a live organization; null when there is none. */
  findMembership(orgId: string, userId: string): Promise<Membership | null>;
  /** The live organization with this id (for management keys, which belong to its account). */
  findOrg(orgId: string): Promise<Organization | null>;
  renameOrg(orgId: string, name: string, actor: OrgActor, now: number): Promise<Organization | null>;
  /** Deletes it when its balance is zero and nothing is in flight; its keys are revoked and its memberships end. */
  deleteOrg(orgId: string, actor: OrgActor, now: number): Promise<"deleted" | "not_empty" | "not_found">;
  listMembers(orgId: string, now: number): Promise<Member[]>;
  /**
   * Applies a role or cap change, judged by `decide` on the rows as locked (the organization's
   * account row first, as admissions take it), and refuses to leave the organization without an owner.
   */
  changeMember(input: {
    orgId: string; actor: OrgActor; userId: string; role?: Role; spendCapPerDay?: Nanos | null;
    decide: (actorRole: Role, targetRole: Role) => "ok" | "forbidden"; now: number;
  }): Promise<MemberOutcome<Member>>;
  /**
   * Ends a membership in one transaction: the member's keys in the organization revoked, their
   * reservations released, the membership deleted. Returns the keys revoked.
   */
  removeMember(input: {
    orgId: string; actor: OrgActor; userId: string;
    decide: (actorRole: Role, targetRole: Role) => "ok" | "forbidden"; now: number;
  }): Promise<MemberOutcome<ApiKey[]>>;
  /**
   * A pending invitation for `email`, replacing any pending one for the same address, and its
   * e-mail; counted in `limits`, or refused with nothing sent when one of them is full.
   */
  invite(input: {
    orgId: string; email: string; role: Role; tokenHash: string; expiresAt: number; mail: QueuedMail; limits: SendLimit[]; actor: OrgActor; now: number;
  }): Promise<Invitation | SendLimited>;
  listInvitations(orgId: string, now: number): Promise<Invitation[]>;
  /** A new token for a pending invitation (the old link dies) and a new e-mail, counted as `invite` counts; null when none is pending. */
  resendInvitation(input: {
    orgId: string; id: string; tokenHash: string; expiresAt: number; mail: QueuedMail; limits: SendLimit[]; actor: OrgActor; now: number;
  }): Promise<Invitation | SendLimited | null>;
  revokeInvitation(orgId: string, id: string, actor: OrgActor, now: number): Promise<Invitation | null>;
  /**
   * Uses an invitation once for the person with `email`: the membership made and the link spent.
   * `invalid`: unknown, used, revoked or expired; `wrong_person`: another address's; `member`: already one.
   */
  acceptInvitation(input: { tokenHash: string; userId: string; email: string; ip: string | null; now: number }):
    Promise<{ ok: Membership } | { refused: "invalid" | "wrong_person" | "member" }>;
  /**
   * Moves `amount` from the person's balance into the organization's: two ledger entries in one
   * transaction, keyed by `idempotencyKey` so that the same key moves it once.
   */
  transfer(input: { orgId: string; actor: OrgActor & { userId: string }; amount: Nanos; idempotencyKey: string; now: number }):
    Promise<{ ok: { personalBalance: Nanos; orgBalance: Nanos; replayed: boolean } } | { refused: "insufficient" | "conflict" }>;
  /**
   * The operator's: makes the person a member with `role` at once (a pending invitation of the
   * same address is revoked, its link would only say "already a member").
   */
  addMember(input: { orgId: string; userId: string; email: string; role: Role; actor: OrgActor; now: number }):
    Promise<{ ok: Member } | { refused: "not_found" | "member" }>;
  /**
   * The operator's: a ledger entry of exactly `amount` on the organization's account and its audit
   * event, in one transaction; a negative amount that would take the balance below zero is refused.
   */
  grantCredit(input: { orgId: string; amount: Nanos; kind: "grant" | "adjustment"; note: string; actor: OrgActor; now: number }):
    Promise<{ ok: { balance: Nanos } } | { refused: "not_found" } | { refused: "below_zero"; balance: Nanos }>;
  /** Every live organization with its member count, for the operator console and the CLI. */
  listOrgs(): Promise<(Organization & { members: number; balance: Nanos })[]>;
}
