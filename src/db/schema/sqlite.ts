// The data model, written once: src/db/schema/pg.gen.ts is generated from this file for Postgres
// (scripts/schema-pg.ts, run by `make migrations`). Money is integer nano-USD, times are epoch milliseconds,
// flags are 0/1 integers, so that one set of SQL statements serves both dialects.
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { CheckoutStatus, DisputeStatus } from "../../core/checkout/sessions.ts";
import type { Nanos } from "../../core/money.ts";

const bigint = (name: string) => integer(name, { mode: "number" });
/** Nano-USD: a 64-bit integer column that the store reads and writes as a bigint (`Nanos`). */
const money = (name: string) => integer(name, { mode: "number" }).$type<Nanos>();
// drizzle-kit writes a default's runtime value into its snapshots and cannot write a bigint:
// the number 0 keeps the migrations as they are.
const NO_NANOS = 0 as unknown as Nanos;

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

export const models = sqliteTable("models", {
  id: text("id").primaryKey(),
  displayName: text("display_name").notNull(),
  provider: text("provider").notNull(),
  category: text("category").notNull(),
  contextWindow: bigint("context_window").notNull(),
  inputNanosPerMTok: money("input_nanos_per_mtok").notNull(),
  outputNanosPerMTok: money("output_nanos_per_mtok").notNull(),
  // Null: cached prompt tokens are charged at the input price.
  cachedInputNanosPerMTok: money("cached_input_nanos_per_mtok"),
  upstreamModel: text("upstream_model").notNull(),
  maxOutputTokens: bigint("max_output_tokens").notNull(),
  useCaseHint: text("use_case_hint").notNull(),
  speedBadge: text("speed_badge").notNull(),
  enabled: bigint("enabled").notNull().default(1),
  sortOrder: bigint("sort_order").notNull().default(0),
});

export const checkoutSessions = sqliteTable("checkout_sessions", {
  id: text("id").primaryKey(), accountId: text("account_id").notNull(),
  packId: text("pack_id").notNull(), creditsNanos: money("credits_nanos").notNull(),
  status: text("status").notNull().$type<CheckoutStatus>(),
  createdAt: bigint("created_at").notNull(), expiresAt: bigint("expires_at").notNull(), paidAt: bigint("paid_at"),
  // Stripe's receipt for the payment, when Stripe gives one (looked up once the session is paid).
  receiptUrl: text("receipt_url"),
  // The payment (PaymentIntent, cents paid), what was refunded (cents, credits taken back) and its dispute: core/checkout/chargebacks.ts.
  paymentIntentId: text("payment_intent_id"), amountPaidCents: bigint("amount_paid_cents"),
  refundedCents: bigint("refunded_cents").notNull().default(0), refundedNanos: money("refunded_nanos").notNull().default(NO_NANOS),
  disputedCents: bigint("disputed_cents"), disputeStatus: text("dispute_status").$type<DisputeStatus>(),
}, (t) => [index("checkout_sessions_account_idx").on(t.accountId, t.createdAt), index("checkout_sessions_payment_intent_idx").on(t.paymentIntentId)]);

export const webhookEvents = sqliteTable("webhook_events", { id: text("id").primaryKey(), type: text("type").notNull(), processedAt: bigint("processed_at").notNull() });

// Every e-mail the gateway sends: low-balance alerts (kind `low_balance`, written from the
// balance and threshold when sent) and account mails (kind `account`: verification, reset;
// balance and threshold 0, text in account_mail_texts), and webhook events (kind `webhook`).
export const alertOutbox = sqliteTable("alert_outbox", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  email: text("email").notNull(),
  balanceNanos: money("balance_nanos").notNull(),
  thresholdNanos: money("threshold_nanos").notNull(),
  kind: text("kind").notNull().default("low_balance"),
  subject: text("subject"),
  body: text("body"),
  createdAt: bigint("created_at").notNull(),
  attempts: bigint("attempts").notNull().default(0),
  nextAttemptAt: bigint("next_attempt_at").notNull(),
  sentAt: bigint("sent_at"),
  lastError: text("last_error"),
  // Webhook events: `subject` the type, `body` the signed JSON (kept), `answer` the receiver's last.
  answer: text("answer"),
}, (t) => [
  index("alert_outbox_pending_idx").on(t.sentAt, t.nextAttemptAt),
  // An account's recent webhook deliveries, as its settings list them.
  index("alert_outbox_account_idx").on(t.accountId, t.createdAt),
]);

// An unsent account e-mail's text, which carries a live link: deleted once sent. A table of its
// own, tiny and off the chat path, that Postgres can rewrite to drop the deleted texts' pages.
export const accountMailTexts = sqliteTable("account_mail_texts", { outboxId: text("outbox_id").primaryKey(), body: text("body").notNull() });

// An account's webhook endpoint (one at most) and its events' signing secret, kept as is (signing needs it).
export const webhookEndpoints = sqliteTable("webhook_endpoints", {
  accountId: text("account_id").primaryKey(),
  url: text("url").notNull(),
  secret: text("secret").notNull(),
  createdAt: bigint("created_at").notNull(),
});

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

// The Responses API's stored state: each response the gateway answered with `store` on (its
// Response object, and the response it continues), and its items, input then output, in order.
// A turn keeps only its own items: a conversation is the chain of its responses, walked back
// through `previous_response_id`, so it weighs what its items weigh. Both expire together.
export const storedResponses = sqliteTable("stored_responses", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  previousResponseId: text("previous_response_id"),
  body: text("body").notNull(),
  createdAt: bigint("created_at").notNull(),
  expiresAt: bigint("expires_at").notNull(),
}, (t) => [
  index("stored_responses_account_idx").on(t.accountId, t.createdAt),
  index("stored_responses_expires_idx").on(t.expiresAt),
]);

export const responseItems = sqliteTable("response_items", {
  responseId: text("response_id").notNull(),
  position: bigint("position").notNull(),
  accountId: text("account_id").notNull(),
  // The item's own id (`msg_…`, `fc_…`), which `item_reference` names; not unique, since a
  // client may send an earlier output item back as input.
  itemId: text("item_id").notNull(),
  kind: text("kind").notNull(), // `input` or `output`
  body: text("body").notNull(),
}, (t) => [
  primaryKey({ columns: [t.responseId, t.position] }),
  index("response_items_item_idx").on(t.accountId, t.itemId),
]);
