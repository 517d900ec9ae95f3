ALTER TABLE `accounts` ADD `is_admin` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `checkout_sessions` ADD `receipt_url` text;--> statement-breakpoint
CREATE INDEX `usage_logs_created_idx` ON `usage_logs` (`created_at`);