// API and management keys.
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bigint, money, NO_NANOS } from "./columns.ts";

export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  name: text("name").notNull(),
  prefix: text("prefix").notNull(),
  hash: text("hash").notNull(),
  origin: text("origin").notNull(),
  createdAt: bigint("created_at").notNull(),
  lastUsedAt: bigint("last_used_at"),
  expiresAt: bigint("expires_at"),
  revokedAt: bigint("revoked_at"),
  creditLimitNanos: money("credit_limit_nanos"),
  usdPerHourNanos: money("usd_per_hour_nanos"),
  requestsPerHour: bigint("requests_per_hour"),
  totalRequests: bigint("total_requests").notNull().default(0),
  totalSpendNanos: money("total_spend_nanos").notNull().default(NO_NANOS),
  // `api` keys call /v1; `management` keys (gw-mgmt-…) call the account endpoints instead.
  kind: text("kind").notNull().default("api"),
  // JSON arrays of catalog IDs and of addresses or CIDR ranges; null: no restriction.
  allowedModels: text("allowed_models"),
  allowedIps: text("allowed_ips"),
  // In an organization, the member who made and owns the key; null for personal and organization keys.
  ownerId: text("owner_id"),
}, (t) => [
  uniqueIndex("api_keys_hash_unique").on(t.hash),
  index("api_keys_account_idx").on(t.accountId, t.createdAt),
]);
