// People and organizations: accounts, their names, memberships and invitations.
import { index, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bigint, money, NO_NANOS } from "./columns.ts";

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  email: text("email").notNull(),
  passwordHash: text("password_hash"),
  createdAt: bigint("created_at").notNull(),
  balanceNanos: money("balance_nanos").notNull().default(NO_NANOS),
  reservedNanos: money("reserved_nanos").notNull().default(NO_NANOS),
  inflight: bigint("inflight").notNull().default(0),
  alertThresholdNanos: money("alert_threshold_nanos"),
  alertArmed: bigint("alert_armed").notNull().default(1),
  spendLimitNanos: money("spend_limit_nanos"),
  bannedAt: bigint("banned_at"),
  deletedAt: bigint("deleted_at"),
  // Null until the owner follows the verification link; the free credits wait for it.
  emailVerifiedAt: bigint("email_verified_at"),
  // Where the account signed up from: the free credits' per-IP bound counts it at verification.
  signupIp: text("signup_ip"),
  // TOTP: the secret while enabled, one being set up until confirmed, and the last time step
  // accepted, so that a code cannot be used twice.
  totpSecret: text("totp_secret"),
  totpPendingSecret: text("totp_pending_secret"),
  totpEnabledAt: bigint("totp_enabled_at"),
  totpLastStep: bigint("totp_last_step"),
  // An operator: may use /dashboard/admin and the /admin endpoints (gateway users promote).
  isAdmin: bigint("is_admin").notNull().default(0),
  // `person`, or `organization` (spent by people through memberships; its e-mail a placeholder).
  kind: text("kind").notNull().default("person"),
  emailSkeleton: text("email_skeleton"), // One person per look-alike address (core/accounts/email-skeleton.ts); null: none.
}, (t) => [uniqueIndex("accounts_email_unique").on(t.email), uniqueIndex("accounts_email_skeleton_unique").on(t.emailSkeleton)]);

// An organization's name; its balance, ledger, keys and settings are its account's (same id).
export const organizations = sqliteTable("organizations", { id: text("id").primaryKey(), name: text("name").notNull(), createdAt: bigint("created_at").notNull() });

// Who belongs to an organization, its role (`owner`, `admin`, `member`) and its daily cap (null: none).
export const memberships = sqliteTable("memberships", {
  orgId: text("org_id").notNull(), userId: text("user_id").notNull(), role: text("role").notNull(),
  spendCapNanosPerDay: money("spend_cap_nanos_per_day"), joinedAt: bigint("joined_at").notNull(),
}, (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index("memberships_user_idx").on(t.userId)]);

// Invitations by e-mail: the token stored only as SHA-256, single use, 7 days; a resend replaces it.
export const invitations = sqliteTable("invitations", {
  id: text("id").primaryKey(), orgId: text("org_id").notNull(), email: text("email").notNull(), role: text("role").notNull(),
  tokenHash: text("token_hash").notNull(), invitedBy: text("invited_by").notNull(), createdAt: bigint("created_at").notNull(),
  expiresAt: bigint("expires_at").notNull(), acceptedAt: bigint("accepted_at"), revokedAt: bigint("revoked_at"),
}, (t) => [uniqueIndex("invitations_token_unique").on(t.tokenHash), index("invitations_org_idx").on(t.orgId, t.createdAt)]);
