CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text,
	"created_at" bigint NOT NULL,
	"balance_nanos" bigint DEFAULT 0 NOT NULL,
	"reserved_nanos" bigint DEFAULT 0 NOT NULL,
	"inflight" bigint DEFAULT 0 NOT NULL,
	"alert_threshold_nanos" bigint,
	"alert_armed" bigint DEFAULT 1 NOT NULL,
	"spend_limit_nanos" bigint,
	"banned_at" bigint,
	"deleted_at" bigint
);
--> statement-breakpoint
CREATE TABLE "alert_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"email" text NOT NULL,
	"balance_nanos" bigint NOT NULL,
	"threshold_nanos" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"sent_at" bigint,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"origin" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint,
	"expires_at" bigint,
	"revoked_at" bigint,
	"credit_limit_nanos" bigint,
	"usd_per_hour_nanos" bigint,
	"requests_per_hour" bigint,
	"total_requests" bigint DEFAULT 0 NOT NULL,
	"total_spend_nanos" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "checkout_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"pack_id" text NOT NULL,
	"credits_nanos" bigint NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"paid_at" bigint
);
--> statement-breakpoint
CREATE TABLE "free_credit_claims" (
	"email" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount_nanos" bigint NOT NULL,
	"idempotency_key" text,
	"note" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "models" (
	"id" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"provider" text NOT NULL,
	"category" text NOT NULL,
	"context_window" bigint NOT NULL,
	"input_nanos_per_mtok" bigint NOT NULL,
	"output_nanos_per_mtok" bigint NOT NULL,
	"upstream_model" text NOT NULL,
	"max_output_tokens" bigint NOT NULL,
	"use_case_hint" text NOT NULL,
	"speed_badge" text NOT NULL,
	"enabled" bigint DEFAULT 1 NOT NULL,
	"sort_order" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_events" (
	"id" text PRIMARY KEY NOT NULL,
	"scope" text NOT NULL,
	"at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text NOT NULL,
	"model" text NOT NULL,
	"requested_model" text NOT NULL,
	"amount_nanos" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"lease_expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_logs" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text,
	"created_at" bigint NOT NULL,
	"model" text NOT NULL,
	"requested_model" text NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	"cost_nanos" bigint NOT NULL,
	"latency_ms" bigint NOT NULL,
	"status" text NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "usage_windows" (
	"scope" text NOT NULL,
	"minute" bigint NOT NULL,
	"spend_nanos" bigint DEFAULT 0 NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_windows_scope_minute_pk" PRIMARY KEY("scope","minute")
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"processed_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_email_unique" ON "accounts" USING btree ("email");--> statement-breakpoint
CREATE INDEX "alert_outbox_pending_idx" ON "alert_outbox" USING btree ("sent_at","next_attempt_at");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_unique" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "api_keys_account_idx" ON "api_keys" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "checkout_sessions_account_idx" ON "checkout_sessions" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "ledger_entries_account_idx" ON "ledger_entries" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_idempotency_unique" ON "ledger_entries" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "rate_events_scope_idx" ON "rate_events" USING btree ("scope","at");--> statement-breakpoint
CREATE INDEX "reservations_lease_idx" ON "reservations" USING btree ("lease_expires_at");--> statement-breakpoint
CREATE INDEX "sessions_account_idx" ON "sessions" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "usage_logs_account_idx" ON "usage_logs" USING btree ("account_id","created_at");