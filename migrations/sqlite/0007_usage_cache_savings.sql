ALTER TABLE `usage_logs` ADD `cached_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `saved_nanos` integer DEFAULT 0 NOT NULL;