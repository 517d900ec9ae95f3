// An organization's members: listed with today's spend, their role and cap changed, removed,
// each change judged on the rows as locked (the organization's account row first, as an
// admission takes it, so that a removal and a request of the member cannot interleave).
import { dayMinuteOf } from "../../../core/billing/hour-window.ts";
import { formatUsd, nanos, type Nanos } from "../../../core/money.ts";
import type { Member, MemberOutcome, OrgStore } from "../../../core/orgs/store.ts";
import type { Role } from "../../../core/orgs/roles.ts";
import type { ApiKey } from "../../../core/store.ts";
import type { Dialect } from "../../migration-files.ts";
import { big, exec, first, int, rows, type Row, type Work } from "../../sql.ts";
import { release } from "../billing/release.ts";
import { apiKeys } from "../../schema/sqlite.ts";
import { record } from "../../typed.ts";
import { toKey } from "../rows.ts";
import { lockOrg, orgAudit } from "./orgs.ts";
import { queueWebhookEvent } from "../webhooks.ts";

const MEMBER_SELECT = `SELECT m.user_id, a.email, m.role, m.spend_cap_nanos_per_day AS cap, m.joined_at,
    COALESCE((SELECT spend_nanos FROM usage_windows WHERE scope = 'm:' || m.org_id || ':' || m.user_id AND minute = ?), 0) AS settled,
    COALESCE((SELECT SUM(r.amount_nanos) FROM reservations r JOIN api_keys k ON k.id = r.key_id
      WHERE r.account_id = m.org_id AND k.owner_id = m.user_id), 0) AS held
  FROM memberships m JOIN accounts a ON a.id = m.user_id`;

const toMember = (r: Row): Member => ({
  userId: r.user_id as string,
  email: r.email as string,
  role: r.role as Role,
  spendCapPerDay: r.cap === null ? null : nanos(big(r.cap)),
  spentToday: nanos(big(r.settled) + big(r.held)),
  joinedAt: int(r.joined_at),
});

export function* listMembers(orgId: string, now: number): Work<Member[]> {
  return (yield* rows(`${MEMBER_SELECT} WHERE m.org_id = ? ORDER BY m.joined_at, m.user_id`, dayMinuteOf(now), orgId)).map(toMember);
}

function* member(orgId: string, userId: string, now: number): Work<Member | null> {
  const row = yield* first(`${MEMBER_SELECT} WHERE m.org_id = ? AND m.user_id = ?`, dayMinuteOf(now), orgId, userId);
  return row ? toMember(row) : null;
}

function* ownerCount(orgId: string): Work<number> {
  return int((yield* first("SELECT COUNT(*) AS n FROM memberships WHERE org_id = ? AND role = 'owner'", orgId))?.n);
}

type Judged = { target: Member } | { refused: "not_found" | "forbidden" };

/**
 * The organization locked, then the actor's and the target's memberships, judged by `decide`.
 * The operator (no person) acts as an owner would.
 */
function* judge(
  dialect: Dialect, orgId: string, actorId: string | null, userId: string, now: number,
  decide: (actorRole: Role, targetRole: Role) => "ok" | "forbidden",
): Work<Judged> {
  if (!(yield* lockOrg(dialect, orgId))) return { refused: "not_found" };
  const actor = actorId === null ? null : yield* member(orgId, actorId, now);
  const target = yield* member(orgId, userId, now);
  if ((actorId !== null && !actor) || !target) return { refused: "not_found" };
  return decide(actor?.role ?? "owner", target.role) === "ok" ? { target } : { refused: "forbidden" };
}

const capWords = (cap: Nanos | null) => (cap === null ? "no daily cap" : `a daily cap of $${formatUsd(cap, 2)}`);

export function* changeMember(dialect: Dialect, input: Parameters<OrgStore["changeMember"]>[0]): Work<MemberOutcome<Member>> {
  const judged = yield* judge(dialect, input.orgId, input.actor.userId, input.userId, input.now, input.decide);
  if ("refused" in judged) return judged;
  const { target } = judged;
  if (target.role === "owner" && input.role !== undefined && input.role !== "owner" && (yield* ownerCount(input.orgId)) <= 1) {
    return { refused: "last_owner" };
  }
  const role = input.role ?? target.role;
  const cap = input.spendCapPerDay === undefined ? target.spendCapPerDay : input.spendCapPerDay;
  yield* exec("UPDATE memberships SET role = ?, spend_cap_nanos_per_day = ? WHERE org_id = ? AND user_id = ?", role, cap, input.orgId, input.userId);
  const changes = [
    ...(role !== target.role ? [`role ${target.role} → ${role}`] : []),
    ...(input.spendCapPerDay !== undefined ? [capWords(cap)] : []),
  ];
  yield* orgAudit(input.orgId, input.actor, "member_changed", `${target.email}: ${changes.join(", ") || "unchanged"}`, input.now);
  return { ok: (yield* member(input.orgId, input.userId, input.now)) as Member };
}

type Added = Awaited<ReturnType<OrgStore["addMember"]>>;

/** The operator's direct appointment: the membership made, and a pending invitation of the address spent. */
export function* addMember(dialect: Dialect, input: Parameters<OrgStore["addMember"]>[0]): Work<Added> {
  if (!(yield* lockOrg(dialect, input.orgId))) return { refused: "not_found" };
  if (yield* member(input.orgId, input.userId, input.now)) return { refused: "member" };
  yield* exec("INSERT INTO memberships (org_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)", input.orgId, input.userId, input.role, input.now);
  const spent = yield* rows(
    "UPDATE invitations SET revoked_at = ? WHERE org_id = ? AND email = ? AND accepted_at IS NULL AND revoked_at IS NULL RETURNING id",
    input.now, input.orgId, input.email,
  );
  const also = spent.length > 0 ? "; the pending invitation revoked" : "";
  yield* orgAudit(input.orgId, input.actor, "member_joined", `${input.email} added as ${input.role}${also}`, input.now);
  return { ok: (yield* member(input.orgId, input.userId, input.now)) as Member };
}

const REMOVED = "Member removed from the organization: its keys were revoked";

/** The member's keys revoked (told to the webhook), its requests' reservations released, its membership ended. */
export function* removeMember(dialect: Dialect, input: Parameters<OrgStore["removeMember"]>[0]): Work<MemberOutcome<ApiKey[]>> {
  const judged = yield* judge(dialect, input.orgId, input.actor.userId, input.userId, input.now, input.decide);
  if ("refused" in judged) return judged;
  const { target } = judged;
  if (target.role === "owner" && (yield* ownerCount(input.orgId)) <= 1) return { refused: "last_owner" };
  const revoked = (yield* rows(
    `UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND owner_id = ? AND revoked_at IS NULL RETURNING *`,
    input.now, input.orgId, input.userId,
  )).map((row) => toKey(record(apiKeys, row)));
  for (const key of revoked) {
    yield* queueWebhookEvent(input.orgId, "key.revoked", { keyId: key.id, name: key.name, prefix: key.prefix, reason: "revoked" }, input.now);
  }
  const open = yield* rows(
    `SELECT r.id, r.created_at FROM reservations r JOIN api_keys k ON k.id = r.key_id WHERE r.account_id = ? AND k.owner_id = ? ORDER BY r.id`,
    input.orgId, input.userId,
  );
  for (const r of open) {
    yield* release({ reservationId: r.id as string, reason: REMOVED, latencyMs: input.now - int(r.created_at), now: input.now });
  }
  yield* exec("DELETE FROM memberships WHERE org_id = ? AND user_id = ?", input.orgId, input.userId);
  const what = input.actor.userId === input.userId ? `${target.email} left` : `${target.email} removed`;
  yield* orgAudit(input.orgId, input.actor, "member_removed", `${what}; ${revoked.length} key(s) revoked`, input.now);
  return { ok: revoked };
}
