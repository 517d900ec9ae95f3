// Organizations themselves: made with their account and first owner, found through a person's
// memberships, renamed, deleted when empty.
import { nanos } from "../../../core/money.ts";
import type { Membership, OrgActor, Organization, OrgStore } from "../../../core/orgs/store.ts";
import type { Role } from "../../../core/orgs/roles.ts";
import type { Dialect } from "../../migration-files.ts";
import { big, exec, first, int, rows, type Row, type Work } from "../../sql.ts";
import { recordAudit } from "../accounts/audit.ts";

/** An organization's account has an e-mail that no one can sign up with, sign in with or mail to. */
export const orgPlaceholderEmail = (id: string) => `org:${id}`;

const toOrg = (r: Row): Organization => ({ id: r.id as string, name: r.name as string, createdAt: int(r.created_at) });

export const toMembership = (r: Row): Membership => ({
  org: { id: r.org_id as string, name: r.name as string, createdAt: int(r.org_created_at) },
  role: r.role as Role,
  spendCapPerDay: r.cap === null || r.cap === undefined ? null : nanos(big(r.cap)),
  joinedAt: int(r.joined_at),
});

export const MEMBERSHIP_SELECT = `SELECT m.org_id, o.name, o.created_at AS org_created_at, m.role, m.spend_cap_nanos_per_day AS cap, m.joined_at
  FROM memberships m JOIN organizations o ON o.id = m.org_id JOIN accounts a ON a.id = m.org_id AND a.deleted_at IS NULL`;

/** Takes the organization's account row, as every admission, settlement and membership change of it does. */
export function* lockOrg(dialect: Dialect, orgId: string): Work<Row | undefined> {
  return yield* first(
    `SELECT id, balance_nanos, reserved_nanos, inflight FROM accounts WHERE id = ? AND kind = 'organization' AND deleted_at IS NULL${dialect === "postgres" ? " FOR UPDATE" : ""}`,
    orgId,
  );
}

export function* orgAudit(orgId: string, actor: OrgActor, type: Parameters<typeof recordAudit>[0]["type"], detail: string, now: number): Work<void> {
  yield* recordAudit({ accountId: orgId, type, ip: actor.ip, detail: `${detail} (by ${actor.label})`, at: now });
}

export function* createOrg(input: Parameters<OrgStore["createOrg"]>[0]): Work<Organization> {
  const id = Bun.randomUUIDv7();
  yield* exec(
    "INSERT INTO accounts (id, email, password_hash, created_at, email_verified_at, kind) VALUES (?, ?, NULL, ?, ?, 'organization')",
    id, orgPlaceholderEmail(id), input.now, input.now,
  );
  yield* exec("INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)", id, input.name, input.now);
  yield* exec("INSERT INTO memberships (org_id, user_id, role, joined_at) VALUES (?, ?, 'owner', ?)", id, input.owner, input.now);
  yield* orgAudit(id, input.actor, "org_created", `organization "${input.name}" created`, input.now);
  return { id, name: input.name, createdAt: input.now };
}

export function* listMemberships(userId: string): Work<Membership[]> {
  return (yield* rows(`${MEMBERSHIP_SELECT} WHERE m.user_id = ? ORDER BY m.joined_at, m.org_id`, userId)).map(toMembership);
}

export function* findMembership(orgId: string, userId: string): Work<Membership | null> {
  const row = yield* first(`${MEMBERSHIP_SELECT} WHERE m.org_id = ? AND m.user_id = ?`, orgId, userId);
  return row ? toMembership(row) : null;
}

export function* findOrg(orgId: string): Work<Organization | null> {
  const row = yield* first(
    "SELECT o.id, o.name, o.created_at FROM organizations o JOIN accounts a ON a.id = o.id AND a.deleted_at IS NULL WHERE o.id = ?", orgId,
  );
  return row ? toOrg(row) : null;
}

export function* renameOrg(orgId: string, name: string, actor: OrgActor, now: number): Work<Organization | null> {
  const row = yield* first(
    `UPDATE organizations SET name = ? WHERE id = ? AND id IN (SELECT id FROM accounts WHERE deleted_at IS NULL)
     RETURNING id, name, created_at`,
    name, orgId,
  );
  if (!row) return null;
  yield* orgAudit(orgId, actor, "org_renamed", `organization renamed to "${name}"`, now);
  return toOrg(row);
}

/** Deleted only when nothing is left in it: no balance, nothing reserved or in flight. */
export function* deleteOrg(dialect: Dialect, orgId: string, actor: OrgActor, now: number): Work<"deleted" | "not_empty" | "not_found"> {
  const org = yield* lockOrg(dialect, orgId);
  if (!org) return "not_found";
  if (big(org.balance_nanos) !== 0n || big(org.reserved_nanos) !== 0n || int(org.inflight) !== 0) return "not_empty";
  yield* exec("UPDATE accounts SET deleted_at = ? WHERE id = ?", now, orgId);
  yield* exec("UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL", now, orgId);
  yield* exec("UPDATE invitations SET revoked_at = ? WHERE org_id = ? AND accepted_at IS NULL AND revoked_at IS NULL", now, orgId);
  yield* exec("DELETE FROM memberships WHERE org_id = ?", orgId);
  yield* orgAudit(orgId, actor, "org_deleted", "organization deleted", now);
  return "deleted";
}

export function* listOrgs(): Work<(Organization & { members: number; balance: ReturnType<typeof nanos> })[]> {
  const found = yield* rows(
    `SELECT o.id, o.name, o.created_at, a.balance_nanos, (SELECT COUNT(*) FROM memberships m WHERE m.org_id = o.id) AS members
     FROM organizations o JOIN accounts a ON a.id = o.id AND a.deleted_at IS NULL ORDER BY o.created_at, o.id`,
  );
  return found.map((r) => ({ ...toOrg(r), members: int(r.members), balance: nanos(big(r.balance_nanos)) }));
}

