// Invitations: a link e-mailed to one address, stored as its hash, spent once, for 7 days; a
// resend replaces the token (the old link dies), and only the invited address may accept.
import type { Invitation, Membership, OrgStore } from "../../../core/orgs/store.ts";
import type { Role } from "../../../core/orgs/roles.ts";
import type { SendLimited } from "../../../core/orgs/invitation-limits.ts";
import type { Dialect } from "../../migration-files.ts";
import { exec, first, int, intOrNull, rows, type Row, type Work } from "../../sql.ts";
import { queueAccountMail } from "../alerts.ts";
import { findMembership, orgAudit } from "./orgs.ts";
import { countSend } from "./send-limits.ts";

const COLUMNS = "id, org_id, email, role, created_at, expires_at, accepted_at, revoked_at";

const toInvitation = (r: Row): Invitation => ({
  id: r.id as string,
  orgId: r.org_id as string,
  email: r.email as string,
  role: r.role as Role,
  createdAt: int(r.created_at),
  expiresAt: int(r.expires_at),
  acceptedAt: intOrNull(r.accepted_at),
  revokedAt: intOrNull(r.revoked_at),
});

const PENDING = "accepted_at IS NULL AND revoked_at IS NULL";

export function* invite(dialect: Dialect, input: Parameters<OrgStore["invite"]>[0]): Work<Invitation | SendLimited> {
  const limited = yield* countSend(dialect, input.limits, input.now);
  if (limited) return limited;
  // One pending invitation per address: a new one replaces the old, whose link dies.
  yield* exec(`UPDATE invitations SET revoked_at = ? WHERE org_id = ? AND email = ? AND ${PENDING}`, input.now, input.orgId, input.email);
  const row = yield* first(
    `INSERT INTO invitations (id, org_id, email, role, token_hash, invited_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     RETURNING ${COLUMNS}`,
    Bun.randomUUIDv7(), input.orgId, input.email, input.role, input.tokenHash, input.actor.userId ?? input.actor.label, input.now, input.expiresAt,
  );
  yield* queueAccountMail(input.orgId, input.email, input.mail, input.now);
  yield* orgAudit(input.orgId, input.actor, "invitation_sent", `${input.email} invited as ${input.role}`, input.now);
  return toInvitation(row as Row);
}

export function* listInvitations(orgId: string, now: number): Work<Invitation[]> {
  return (yield* rows(
    `SELECT ${COLUMNS} FROM invitations WHERE org_id = ? AND ${PENDING} AND expires_at > ? ORDER BY created_at DESC, id DESC`, orgId, now,
  )).map(toInvitation);
}

export function* resendInvitation(dialect: Dialect, input: Parameters<OrgStore["resendInvitation"]>[0]): Work<Invitation | SendLimited | null> {
  // A resend is an e-mail too, counted as one; one that finds nothing pending sends and counts nothing.
  if (!(yield* first(`SELECT id FROM invitations WHERE id = ? AND org_id = ? AND ${PENDING}`, input.id, input.orgId))) return null;
  const limited = yield* countSend(dialect, input.limits, input.now);
  if (limited) return limited;
  const row = yield* first(
    `UPDATE invitations SET token_hash = ?, expires_at = ?, created_at = ? WHERE id = ? AND org_id = ? AND ${PENDING} RETURNING ${COLUMNS}`,
    input.tokenHash, input.expiresAt, input.now, input.id, input.orgId,
  );
  if (!row) return null;
  const invitation = toInvitation(row);
  yield* queueAccountMail(input.orgId, invitation.email, input.mail, input.now);
  yield* orgAudit(input.orgId, input.actor, "invitation_sent", `${invitation.email} invited again as ${invitation.role}`, input.now);
  return invitation;
}

export function* revokeInvitation(orgId: string, id: string, actor: Parameters<OrgStore["revokeInvitation"]>[2], now: number): Work<Invitation | null> {
  const row = yield* first(
    `UPDATE invitations SET revoked_at = ? WHERE id = ? AND org_id = ? AND ${PENDING} RETURNING ${COLUMNS}`, now, id, orgId,
  );
  if (!row) return null;
  const invitation = toInvitation(row);
  yield* orgAudit(orgId, actor, "invitation_revoked", `invitation of ${invitation.email} revoked`, now);
  return invitation;
}

type Accepted = Awaited<ReturnType<OrgStore["acceptInvitation"]>>;

/** The UPDATE both checks and spends the link, so of two acceptances only one joins. */
export function* acceptInvitation(input: Parameters<OrgStore["acceptInvitation"]>[0]): Work<Accepted> {
  const found = yield* first(
    `SELECT i.id, i.org_id, i.email, i.role FROM invitations i JOIN accounts a ON a.id = i.org_id AND a.deleted_at IS NULL
     WHERE i.token_hash = ? AND i.${PENDING.replace(" AND ", " AND i.")} AND i.expires_at > ?`,
    input.tokenHash, input.now,
  );
  if (!found) return { refused: "invalid" };
  if (found.email !== input.email) return { refused: "wrong_person" };
  const orgId = found.org_id as string;
  if (yield* findMembership(orgId, input.userId)) return { refused: "member" };
  const spent = yield* first(`UPDATE invitations SET accepted_at = ? WHERE id = ? AND ${PENDING} RETURNING id`, input.now, found.id);
  if (!spent) return { refused: "invalid" };
  yield* exec("INSERT INTO memberships (org_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)", orgId, input.userId, found.role, input.now);
  const actor = { userId: input.userId, label: input.email, ip: input.ip };
  yield* orgAudit(orgId, actor, "member_joined", `${input.email} joined as ${found.role as string}`, input.now);
  return { ok: (yield* findMembership(orgId, input.userId)) as Membership };
}
