CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`at` integer NOT NULL,
	`type` text NOT NULL,
	`ip` text,
	`detail` text
);
--> statement-breakpoint
CREATE INDEX `audit_events_account_idx` ON `audit_events` (`account_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_events_at_idx` ON `audit_events` (`at`);--> statement-breakpoint
CREATE TABLE `auth_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`purpose` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `auth_tokens_account_idx` ON `auth_tokens` (`account_id`,`purpose`);--> statement-breakpoint
CREATE TABLE `recovery_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `recovery_codes_account_idx` ON `recovery_codes` (`account_id`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `email_verified_at` integer;--> statement-breakpoint
ALTER TABLE `accounts` ADD `signup_ip` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `totp_secret` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `totp_pending_secret` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `totp_enabled_at` integer;--> statement-breakpoint
ALTER TABLE `accounts` ADD `totp_last_step` integer;--> statement-breakpoint
ALTER TABLE `alert_outbox` ADD `kind` text DEFAULT 'low_balance' NOT NULL;--> statement-breakpoint
ALTER TABLE `alert_outbox` ADD `subject` text;--> statement-breakpoint
ALTER TABLE `alert_outbox` ADD `body` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `last_seen_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `ip` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `user_agent` text;