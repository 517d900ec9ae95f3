// Row readers shared by the store modules: snake_case columns in, core types out.
import { nanos } from "../../core/money.ts";
import type { Account, ApiKey } from "../../core/store.ts";
import type { apiKeys } from "../schema/sqlite.ts";
import { big, bigOrNull, int, intOrNull, type Row } from "../sql.ts";

export const ACCOUNT_COLUMNS = `id, email, created_at, balance_nanos, reserved_nanos, inflight, alert_threshold_nanos,
  spend_limit_nanos, banned_at, deleted_at, email_verified_at, totp_enabled_at, signup_ip, is_admin`;

export const toAccount = (r: Row): Account => ({
  id: r.id as string,
  email: r.email as string,
  createdAt: int(r.created_at),
  balance: nanos(big(r.balance_nanos)),
  reserved: nanos(big(r.reserved_nanos)),
  inflight: int(r.inflight),
  alertThreshold: nullableNanos(r.alert_threshold_nanos),
  spendLimit: nullableNanos(r.spend_limit_nanos),
  bannedAt: intOrNull(r.banned_at),
  deletedAt: intOrNull(r.deleted_at),
  emailVerifiedAt: intOrNull(r.email_verified_at),
  totpEnabledAt: intOrNull(r.totp_enabled_at),
  signupIp: (r.signup_ip as string | null) ?? null,
  isAdmin: int(r.is_admin) === 1,
});

export const KEY_COLUMNS = `id, account_id, name, prefix, created_at, last_used_at, expires_at, revoked_at,
  credit_limit_nanos, usd_per_hour_nanos, requests_per_hour, total_requests, total_spend_nanos`;

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
});

function nullableNanos(value: unknown) {
  const amount = bigOrNull(value);
  return amount === null ? null : nanos(amount);
}
