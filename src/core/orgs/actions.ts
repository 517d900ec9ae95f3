// What the organization endpoints do, for a signed-in person: each checks the person's role in
// the organization, then asks the store, which re-judges what could race under its lock.
import { AppError } from "../errors.ts";
import type { Account } from "../entities.ts";
import { hashSessionToken, newSessionToken } from "../accounts/session.ts";
import { linkToken } from "../accounts/recovery.ts";
import { MESSAGES } from "../errors.ts";
import type { Nanos } from "../money.ts";
import {
  forbidden, inviteRefusal, LAST_OWNER, manages, memberChangeRefusal, ORG_NOT_FOUND, type Role,
} from "./roles.ts";
import { invitationLimits, invitationRefusal } from "./invitation-limits.ts";
import { INVITATION_TTL_MS, invitationMail } from "./requests.ts";
import type { Membership, MemberOutcome, OrgActor, Organization, OrgStore } from "./store.ts";

export interface OrgContext {
  store: OrgStore;
  person: Account;
  ip: string | null;
  dashboardUrl: string;
  now: number;
}

const actorOf = (ctx: OrgContext): OrgActor & { userId: string } => ({ userId: ctx.person.id, label: ctx.person.email, ip: ctx.ip });

/** The person's membership of the organization: 404 as for an unknown one when there is none. */
export async function membershipOf(ctx: OrgContext, orgId: string): Promise<Membership> {
  const found = await ctx.store.findMembership(orgId, ctx.person.id);
  if (!found) throw new AppError("not_found", ORG_NOT_FOUND);
  return found;
}

/** The person's membership, refused with 403 unless its role runs the organization. */
export async function managerOf(ctx: OrgContext, orgId: string): Promise<Membership> {
  const found = await membershipOf(ctx, orgId);
  if (!manages(found.role)) throw forbidden();
  return found;
}

/**
 * The organization's members as the person may read them: everyone, with caps and today's
 * spend, for its owners and admins; a member its own row only, since a member sees its own
 * keys and usage only (DESIGN), and so neither another's cap nor what another spent.
 */
export async function visibleMembers(ctx: OrgContext, orgId: string) {
  const own = await membershipOf(ctx, orgId);
  const members = await ctx.store.listMembers(orgId, ctx.now);
  return manages(own.role) ? members : members.filter((m) => m.userId === ctx.person.id);
}

export async function createOrg(ctx: OrgContext, name: string) {
  if (ctx.person.emailVerifiedAt === null) throw new AppError("permission_error", "Verify your e-mail address before creating an organization");
  return ctx.store.createOrg({ name, owner: ctx.person.id, actor: actorOf(ctx), now: ctx.now });
}

export async function deleteOrg(ctx: OrgContext, orgId: string): Promise<void> {
  const { role } = await membershipOf(ctx, orgId);
  if (role !== "owner") throw forbidden();
  const outcome = await ctx.store.deleteOrg(orgId, actorOf(ctx), ctx.now);
  if (outcome === "not_found") throw new AppError("not_found", ORG_NOT_FOUND);
  if (outcome === "not_empty") {
    throw new AppError("conflict", "An organization can be deleted only when its balance is zero and no request is in flight");
  }
}

/** An invitation and its e-mail, whoever sends it (a member with the right role, or the operator). */
export async function sendInvitation(
  store: OrgStore,
  input: { org: Organization; email: string; role: Role; actor: OrgActor; dashboardUrl: string; now: number },
) {
  const token = newSessionToken();
  const inviter = input.actor.userId === null ? "The operator" : input.actor.label;
  const sent = await store.invite({
    orgId: input.org.id, email: input.email, role: input.role, tokenHash: hashSessionToken(token), expiresAt: input.now + INVITATION_TTL_MS,
    mail: invitationMail(input.dashboardUrl, input.org.name, inviter, input.role, token),
    limits: invitationLimits(input.org.id, input.actor.userId), actor: input.actor, now: input.now,
  });
  if ("limited" in sent) throw invitationRefusal(sent, input.now);
  return sent;
}

export async function invite(ctx: OrgContext, orgId: string, input: { email: string; role: Role }) {
  const { role, org } = await membershipOf(ctx, orgId);
  const refusal = inviteRefusal(role, input.role);
  if (refusal) throw refusal;
  if ((await ctx.store.listMembers(orgId, ctx.now)).some((m) => m.email === input.email)) {
    throw new AppError("conflict", `${input.email} is already a member of this organization`);
  }
  return sendInvitation(ctx.store, { org, ...input, actor: actorOf(ctx), dashboardUrl: ctx.dashboardUrl, now: ctx.now });
}

const INVITATION_NOT_FOUND = "Invitation not found";

export async function resendInvitation(ctx: OrgContext, orgId: string, invitationId: string) {
  const { org, role } = await managerOf(ctx, orgId);
  const pending = (await ctx.store.listInvitations(orgId, 0)).find((i) => i.id === invitationId);
  if (!pending) throw new AppError("not_found", INVITATION_NOT_FOUND);
  const refusal = inviteRefusal(role, pending.role);
  if (refusal) throw refusal;
  const token = newSessionToken();
  const resent = await ctx.store.resendInvitation({
    orgId, id: invitationId, tokenHash: hashSessionToken(token), expiresAt: ctx.now + INVITATION_TTL_MS,
    mail: invitationMail(ctx.dashboardUrl, org.name, ctx.person.email, pending.role, token),
    limits: invitationLimits(orgId, ctx.person.id), actor: actorOf(ctx), now: ctx.now,
  });
  if (!resent) throw new AppError("not_found", INVITATION_NOT_FOUND);
  if ("limited" in resent) throw invitationRefusal(resent, ctx.now);
  return resent;
}

export async function revokeInvitation(ctx: OrgContext, orgId: string, invitationId: string) {
  await managerOf(ctx, orgId);
  const revoked = await ctx.store.revokeInvitation(orgId, invitationId, actorOf(ctx), ctx.now);
  if (!revoked) throw new AppError("not_found", INVITATION_NOT_FOUND);
  return revoked;
}

/** Only the invited address, verified, may accept; the link is spent by the acceptance alone. */
export async function acceptInvitation(ctx: OrgContext, body: Record<string, unknown>): Promise<Membership> {
  const tokenHash = hashSessionToken(linkToken(body.token));
  if (ctx.person.emailVerifiedAt === null) throw new AppError("permission_error", "Verify your e-mail address before accepting an invitation");
  const outcome = await ctx.store.acceptInvitation({ tokenHash, userId: ctx.person.id, email: ctx.person.email, ip: ctx.ip, now: ctx.now });
  if ("ok" in outcome) return outcome.ok;
  if (outcome.refused === "wrong_person") throw new AppError("permission_error", "This invitation is for another e-mail address");
  if (outcome.refused === "member") throw new AppError("conflict", "You are already a member of this organization");
  throw new AppError("invalid_request_error", MESSAGES.invalidLink);
}

/** A member change's outcome, or the error its refusal answers. */
export function settled<T>(outcome: MemberOutcome<T>, notFound: string): T {
  if ("ok" in outcome) return outcome.ok;
  if (outcome.refused === "forbidden") throw forbidden();
  if (outcome.refused === "last_owner") throw new AppError("conflict", LAST_OWNER);
  throw new AppError("not_found", notFound);
}

export const MEMBER_NOT_FOUND = "Member not found";

export async function changeMember(ctx: OrgContext, orgId: string, userId: string, change: { role?: Role; spendCapPerDay?: Nanos | null }) {
  await membershipOf(ctx, orgId);
  const decide = (actorRole: Role, targetRole: Role) =>
    memberChangeRefusal({ userId: ctx.person.id, role: actorRole }, { userId, role: targetRole },
      { role: change.role, cap: change.spendCapPerDay !== undefined }) ? "forbidden" as const : "ok" as const;
  return settled(await ctx.store.changeMember({ orgId, actor: actorOf(ctx), userId, ...change, decide, now: ctx.now }), MEMBER_NOT_FOUND);
}

export async function removeMember(ctx: OrgContext, orgId: string, userId: string) {
  await membershipOf(ctx, orgId);
  const decide = (actorRole: Role, targetRole: Role) =>
    memberChangeRefusal({ userId: ctx.person.id, role: actorRole }, { userId, role: targetRole }, { remove: true }) ? "forbidden" as const : "ok" as const;
  return settled(await ctx.store.removeMember({ orgId, actor: actorOf(ctx), userId, decide, now: ctx.now }), MEMBER_NOT_FOUND);
}

/** Any member may move its own credit in; the same idempotency key moves it once. */
export async function transfer(ctx: OrgContext, orgId: string, input: { amount: Nanos; idempotencyKey: string }) {
  await membershipOf(ctx, orgId);
  const outcome = await ctx.store.transfer({ orgId, actor: actorOf(ctx), ...input, now: ctx.now });
  if ("ok" in outcome) return outcome.ok;
  if (outcome.refused === "conflict") throw new AppError("conflict", "idempotencyKey was used for another transfer");
  throw new AppError("insufficient_credits", "Insufficient credits: your available balance is less than the transfer");
}
