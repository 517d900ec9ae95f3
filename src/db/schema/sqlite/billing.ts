// Money and requests: the ledger, reservations in flight, usage rows and the rolling windows.
import { index, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bigint, money, NO_NANOS } from "./columns.ts";

export const ledgerEntries = sqliteTable("ledger_entries", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  kind: text("kind").notNull(),
  amountNanos: money("amount_nanos").notNull(),
  idempotencyKey: text("idempotency_key"),
  note: text("note"),
  createdAt: bigint("created_at").notNull(),
}, (t) => [
  index("ledger_entries_account_idx").on(t.accountId, t.createdAt),
  uniqueIndex("ledger_entries_idempotency_unique").on(t.idempotencyKey),
]);

// Requests in flight, one row each. No index beyond the key: the table stays small, and the
// sweeper's scan for expired leases costs less than an index every admission, settlement and
// lease renewal would write.
export const reservations = sqliteTable("reservations", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  keyId: text("key_id").notNull(),
  model: text("model").notNull(),
  requestedModel: text("requested_model").notNull(),
  amountNanos: money("amount_nanos").notNull(),
  createdAt: bigint("created_at").notNull(),
  leaseExpiresAt: bigint("lease_expires_at").notNull(),
});

export const usageLogs = sqliteTable("usage_logs", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  keyId: text("key_id"),
  createdAt: bigint("created_at").notNull(),
  model: text("model").notNull(),
  requestedModel: text("requested_model").notNull(),
  promptTokens: bigint("prompt_tokens").notNull(),
  completionTokens: bigint("completion_tokens").notNull(),
  costNanos: money("cost_nanos").notNull(),
  latencyMs: bigint("latency_ms").notNull(),
  status: text("status").notNull(),
  error: text("error"),
  // Prompt tokens read from the provider's cache, and what that saved the customer: the cost at
  // the uncached input price less the charge (the prices of the moment, kept with the row).
  cachedTokens: bigint("cached_tokens").notNull().default(0),
  savedNanos: money("saved_nanos").notNull().default(NO_NANOS),
}, (t) => [
  index("usage_logs_account_idx").on(t.accountId, t.createdAt),
  // The operator console's platform-wide reads by day go by the primary key: ids are UUIDv7s
  // of `created_at` (store/billing/usage-log.ts), one index fewer to write on every request.
]);

// Spend and request counts per minute, per key and per account, for the rolling hourly limits.
export const usageWindows = sqliteTable("usage_windows", {
  scope: text("scope").notNull(),
  minute: bigint("minute").notNull(),
  spendNanos: money("spend_nanos").notNull().default(NO_NANOS),
  requests: bigint("requests").notNull().default(0),
}, (t) => [primaryKey({ columns: [t.scope, t.minute] })]);
