// Sign-in and its traces: sessions, single-use links, recovery codes, rate events, free-credit claims and the audit log.
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bigint } from "./columns.ts";

// Individual events for low-volume limits (estimator per IP, sign-in attempts, free-credit sign-ups).
export const rateEvents = sqliteTable("rate_events", {
  id: text("id").primaryKey(),
  scope: text("scope").notNull(),
  at: bigint("at").notNull(),
}, (t) => [index("rate_events_scope_idx").on(t.scope, t.at)]);

export const sessions = sqliteTable("sessions", {
  tokenHash: text("token_hash").primaryKey(),
  accountId: text("account_id").notNull(),
  createdAt: bigint("created_at").notNull(),
  expiresAt: bigint("expires_at").notNull(),
  // What the session list shows; null for sessions made before they were recorded.
  lastSeenAt: bigint("last_seen_at"),
  ip: text("ip"),
  userAgent: text("user_agent"),
}, (t) => [index("sessions_account_idx").on(t.accountId)]);

// E-mail verification and password reset links (single use) and sign-in devices (`device`): expiring, stored only as SHA-256.
export const authTokens = sqliteTable("auth_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  accountId: text("account_id").notNull(),
  purpose: text("purpose").notNull(),
  createdAt: bigint("created_at").notNull(),
  expiresAt: bigint("expires_at").notNull(),
  usedAt: bigint("used_at"),
}, (t) => [index("auth_tokens_account_idx").on(t.accountId, t.purpose)]);

// Two-factor recovery codes, stored only as SHA-256; each signs in once.
export const recoveryCodes = sqliteTable("recovery_codes", {
  codeHash: text("code_hash").primaryKey(),
  accountId: text("account_id").notNull(),
  createdAt: bigint("created_at").notNull(),
  usedAt: bigint("used_at"),
}, (t) => [index("recovery_codes_account_idx").on(t.accountId)]);

export const freeCreditClaims = sqliteTable("free_credit_claims", {
  email: text("email").primaryKey(), accountId: text("account_id").notNull(), createdAt: bigint("created_at").notNull(), emailSkeleton: text("email_skeleton"),
}, (t) => [uniqueIndex("free_credit_claims_email_skeleton_unique").on(t.emailSkeleton)]);

// Security events per account (sign-ins, password and 2FA changes, keys, credits, bans), kept for
// the account's owner and the operator. `detail` is a short human sentence, never a secret.
export const auditEvents = sqliteTable("audit_events", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  at: bigint("at").notNull(),
  type: text("type").notNull(),
  ip: text("ip"),
  detail: text("detail"),
}, (t) => [
  index("audit_events_account_idx").on(t.accountId, t.at),
  index("audit_events_at_idx").on(t.at),
]);
