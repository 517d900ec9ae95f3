CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text,
	`created_at` integer NOT NULL,
	`balance_nanos` integer DEFAULT 0 NOT NULL,
	`reserved_nanos` integer DEFAULT 0 NOT NULL,
	`inflight` integer DEFAULT 0 NOT NULL,
	`alert_threshold_nanos` integer,
	`alert_armed` integer DEFAULT 1 NOT NULL,
	`spend_limit_nanos` integer,
	`banned_at` integer,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_email_unique` ON `accounts` (`email`);--> statement-breakpoint
CREATE TABLE `alert_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`email` text NOT NULL,
	`balance_nanos` integer NOT NULL,
	`threshold_nanos` integer NOT NULL,
	`created_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`sent_at` integer,
	`last_error` text
);
--> statement-breakpoint
CREATE INDEX `alert_outbox_pending_idx` ON `alert_outbox` (`sent_at`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`hash` text NOT NULL,
	`origin` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`expires_at` integer,
	`revoked_at` integer,
	`credit_limit_nanos` integer,
	`usd_per_hour_nanos` integer,
	`requests_per_hour` integer,
	`total_requests` integer DEFAULT 0 NOT NULL,
	`total_spend_nanos` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_unique` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `checkout_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`pack_id` text NOT NULL,
	`credits_nanos` integer NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`paid_at` integer
);
--> statement-breakpoint
CREATE INDEX `checkout_sessions_account_idx` ON `checkout_sessions` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `free_credit_claims` (
	`email` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ledger_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`kind` text NOT NULL,
	`amount_nanos` integer NOT NULL,
	`idempotency_key` text,
	`note` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ledger_entries_account_idx` ON `ledger_entries` (`account_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_entries_idempotency_unique` ON `ledger_entries` (`idempotency_key`);--> statement-breakpoint
CREATE TABLE `models` (
	`id` text PRIMARY KEY NOT NULL,
	`display_name` text NOT NULL,
	`provider` text NOT NULL,
	`category` text NOT NULL,
	`context_window` integer NOT NULL,
	`input_nanos_per_mtok` integer NOT NULL,
	`output_nanos_per_mtok` integer NOT NULL,
	`upstream_model` text NOT NULL,
	`max_output_tokens` integer NOT NULL,
	`use_case_hint` text NOT NULL,
	`speed_badge` text NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `rate_events` (
	`id` text PRIMARY KEY NOT NULL,
	`scope` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rate_events_scope_idx` ON `rate_events` (`scope`,`at`);--> statement-breakpoint
CREATE TABLE `reservations` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`key_id` text NOT NULL,
	`model` text NOT NULL,
	`requested_model` text NOT NULL,
	`amount_nanos` integer NOT NULL,
	`created_at` integer NOT NULL,
	`lease_expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `reservations_lease_idx` ON `reservations` (`lease_expires_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sessions_account_idx` ON `sessions` (`account_id`);--> statement-breakpoint
CREATE TABLE `usage_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`key_id` text,
	`created_at` integer NOT NULL,
	`model` text NOT NULL,
	`requested_model` text NOT NULL,
	`prompt_tokens` integer NOT NULL,
	`completion_tokens` integer NOT NULL,
	`cost_nanos` integer NOT NULL,
	`latency_ms` integer NOT NULL,
	`status` text NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `usage_logs_account_idx` ON `usage_logs` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `usage_windows` (
	`scope` text NOT NULL,
	`minute` integer NOT NULL,
	`spend_nanos` integer DEFAULT 0 NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`scope`, `minute`)
);
--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`processed_at` integer NOT NULL
);
