// Record readers shared by the store modules: a table's typed record (src/db/typed.ts) in, core types out.
import type { Account, ApiKey } from "../../core/store.ts";
import { accounts, type apiKeys } from "../schema/sqlite.ts";
import type { Row } from "../sql.ts";
import { record } from "../typed.ts";

export const ACCOUNT_COLUMNS = `id, email, created_at, balance_nanos, reserved_nanos, inflight, alert_threshold_nanos,
  spend_limit_nanos, banned_at, deleted_at, email_verified_at, totp_enabled_at, signup_ip, is_admin, kind`;

/** An account's record as the account entity. */
export const toAccount = (r: typeof accounts.$inferSelect): Account => ({
  id: r.id,
  email: r.email,
  createdAt: r.createdAt,
  balance: r.balanceNanos,
  reserved: r.reservedNanos,
  inflight: r.inflight,
  alertThreshold: r.alertThresholdNanos,
  spendLimit: r.spendLimitNanos,
  bannedAt: r.bannedAt,
  deletedAt: r.deletedAt,
  emailVerifiedAt: r.emailVerifiedAt,
  totpEnabledAt: r.totpEnabledAt,
  signupIp: r.signupIp,
  isAdmin: r.isAdmin === 1,
  kind: r.kind === "organization" ? "organization" : "person",
});

/** A row of hand-written SQL that selected `ACCOUNT_COLUMNS`, as the account entity. */
export const accountFromRow = (row: Row): Account => toAccount(record(accounts, row));

export const KEY_COLUMNS = `id, account_id, name, prefix, created_at, last_used_at, expires_at, revoked_at,
  credit_limit_nanos, usd_per_hour_nanos, requests_per_hour, total_requests, total_spend_nanos, kind, allowed_models, allowed_ips, owner_id`;

/** A key's record as the API-key entity. */
export const toKey = (r: typeof apiKeys.$inferSelect): ApiKey => ({
  id: r.id,
  accountId: r.accountId,
  name: r.name,
  prefix: r.prefix,
  createdAt: r.createdAt,
  lastUsedAt: r.lastUsedAt,
  expiresAt: r.expiresAt,
  revokedAt: r.revokedAt,
  creditLimit: r.creditLimitNanos,
  usdPerHour: r.usdPerHourNanos,
  requestsPerHour: r.requestsPerHour,
  totalRequests: r.totalRequests,
  totalSpend: r.totalSpendNanos,
  kind: r.kind === "management" ? "management" : "api",
  allowedModels: listOrNull(r.allowedModels),
  allowedIps: listOrNull(r.allowedIps),
  ownerId: r.ownerId,
});

/** A JSON array column: null (or an empty list) is no restriction. */
const listOrNull = (column: string | null): string[] | null => {
  if (column === null) return null;
  const list = JSON.parse(column) as string[];
  return list.length > 0 ? list : null;
};

/** The column of a list: null for none. */
export const listColumn = (list: string[] | null | undefined): string | null | undefined =>
  list === undefined ? undefined : list === null || list.length === 0 ? null : JSON.stringify(list);
