// The organization endpoints' bodies read into what the store takes, each refusal a 400 that
// names the field, and what the endpoints answer.
import { AppError } from "../errors.ts";
import { parseEmail } from "../accounts/sign-in.ts";
import { apiUsd, formatUsd, readUsd, type Nanos, type UsdFormat } from "../money.ts";
import type { Invitation, Member, Membership, Organization } from "./store.ts";
import { isRole, ROLES, type Role } from "./roles.ts";

const invalid = (message: string) => new AppError("invalid_request_error", message);
const NAME_MAX = 100;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

export function parseOrgName(body: Record<string, unknown>): string {
  const name = typeof body.name === "string" ? body.name.trim() : "";
  if (name.length === 0 || name.length > NAME_MAX) throw invalid(`name must be text of 1 to ${NAME_MAX} characters`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalid("name must not contain control characters");
  return name;
}

function parseRole(value: unknown): Role {
  if (!isRole(value)) throw invalid(`role must be one of ${ROLES.join(", ")}`);
  return value;
}

export function parseInvitation(body: Record<string, unknown>): { email: string; role: Role } {
  return { email: parseEmail(body.email), role: body.role === undefined ? "member" : parseRole(body.role) };
}

/** A USD amount in dollars as a JSON number or decimal string; `what` names the field in refusals. */
function usdField(value: unknown, what: string): Nanos {
  const read = typeof value === "number" || typeof value === "string" ? readUsd(value) : null;
  if (read?.ok) return read.amount;
  if (read?.refusal === "precision") throw invalid(`${what} must have at most 9 decimal places`);
  throw invalid(`${what} must be a non-negative amount in USD`);
}

export function parseMemberChange(body: Record<string, unknown>): { role?: Role; spendCapPerDay?: Nanos | null } {
  const change: { role?: Role; spendCapPerDay?: Nanos | null } = {};
  if (body.role !== undefined) change.role = parseRole(body.role);
  if (body.spendCapUsdPerDay !== undefined) {
    change.spendCapPerDay = body.spendCapUsdPerDay === null ? null : usdField(body.spendCapUsdPerDay, "spendCapUsdPerDay");
  }
  if (change.role === undefined && !("spendCapPerDay" in change)) throw invalid("give role or spendCapUsdPerDay");
  return change;
}

export function parseTransfer(body: Record<string, unknown>): { amount: Nanos; idempotencyKey: string } {
  const amount = usdField(body.usd, "usd");
  if (amount <= 0n) throw invalid("usd must be more than 0");
  const key = body.idempotencyKey;
  if (typeof key !== "string" || !IDEMPOTENCY_KEY.test(key)) throw invalid("idempotencyKey must be 1 to 200 printable characters");
  return { amount, idempotencyKey: key };
}

const iso = (at: number) => new Date(at).toISOString();

export const orgView = (org: Organization, role: Role) => ({ id: org.id, name: org.name, role, createdAt: iso(org.createdAt) });

/** An organization as the console lists it (`GET /admin/orgs`): its members counted, its balance. */
export const adminOrgViewIn = (usd: UsdFormat) => (o: Organization & { members: number; balance: Nanos }) => ({
  id: o.id, name: o.name, members: o.members, balanceUsd: usd(o.balance, 6), createdAt: iso(o.createdAt),
});

export const adminOrgView = adminOrgViewIn(apiUsd);

export const membershipViewIn = (usd: UsdFormat) => (m: Membership) => ({
  ...orgView(m.org, m.role),
  spendCapUsdPerDay: m.spendCapPerDay === null ? null : usd(m.spendCapPerDay, 6),
});

export const membershipView = membershipViewIn(apiUsd);

export const memberViewIn = (usd: UsdFormat) => (m: Member) => ({
  userId: m.userId,
  email: m.email,
  role: m.role,
  spendCapUsdPerDay: m.spendCapPerDay === null ? null : usd(m.spendCapPerDay, 6),
  spentTodayUsd: usd(m.spentToday, 6),
  joinedAt: iso(m.joinedAt),
});
export const memberView = memberViewIn(apiUsd);

export const invitationView = (i: Invitation) => ({ id: i.id, email: i.email, role: i.role, expiresAt: iso(i.expiresAt), createdAt: iso(i.createdAt) });

/** Invitations work for 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * An organization's name as an e-mail shows it: text its owner chose, so text that must not
 * pass for a link a mail client would make clickable. A dot between letters or digits (and the
 * full-width and ideographic dots some clients also read as one) is written `[.]` and a scheme's
 * `://` as `[:]//`, as security advisories defang addresses; invisible formatting characters
 * (bidirectional overrides among them, which can reorder what is shown) are dropped.
 */
export const plainName = (name: string): string =>
  name
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, "")
    .replace(/:\/\//g, "[:]//")
    .replace(/(?<=[\p{L}\p{N}])[.\u2024\uFE52\uFF0E\u3002\uFF61](?=[\p{L}\p{N}])/gu, "[.]");

export const invitationMail = (dashboardUrl: string, orgName: string, inviter: string, role: Role, token: string) => ({
  // Not the name: a subject is read before anything else, and there is no room there to say who chose it.
  subject: "You are invited to join an organization on the gateway",
  text: [
    `${inviter} invited you to join the organization "${plainName(orgName)}" as ${role === "admin" ? "an admin" : `a ${role}`}.`,
    "(The organization's name was chosen by whoever invited you; the gateway has not checked it,",
    "and it is not a link: dots in it are written [.].) Accept at:",
    "",
    `${dashboardUrl}/invitations/accept?token=${token}`,
    "",
    "The link works once, for 7 days, and only when you are signed in with this e-mail address.",
    "If you do not know the sender, ignore this e-mail.",
    "",
  ].join("\n"),
});

/**
 * The organization other than `self` already called `name`, case aside: the operator names
 * organizations (the CLI finds one by its name), so a name is one organization's.
 */
export function nameHolder<T extends Organization>(orgs: T[], name: string, self?: string): T | undefined {
  const wanted = name.toLowerCase();
  return orgs.find((org) => org.id !== self && org.name.toLowerCase() === wanted);
}
