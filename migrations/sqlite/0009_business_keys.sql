CREATE TABLE `webhook_endpoints` (
	`account_id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `alert_outbox` ADD `answer` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `kind` text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `allowed_models` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `allowed_ips` text;