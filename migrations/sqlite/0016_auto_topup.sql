CREATE TABLE `auto_topups` (
	`account_id` text PRIMARY KEY NOT NULL,
	`pack_id` text NOT NULL,
	`threshold_nanos` integer NOT NULL,
	`monthly_max_nanos` integer NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`customer_id` text,
	`payment_method_id` text,
	`card_brand` text,
	`card_last4` text,
	`pending_since` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `checkout_sessions` ADD `auto_topup` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `checkout_sessions` ADD `invoice_id` text;--> statement-breakpoint
ALTER TABLE `checkout_sessions` ADD `invoice_url` text;