ALTER TABLE `checkout_sessions` ADD `payment_intent_id` text;--> statement-breakpoint
ALTER TABLE `checkout_sessions` ADD `amount_paid_cents` integer;--> statement-breakpoint
ALTER TABLE `checkout_sessions` ADD `refunded_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `checkout_sessions` ADD `refunded_nanos` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `checkout_sessions` ADD `disputed_cents` integer;--> statement-breakpoint
ALTER TABLE `checkout_sessions` ADD `dispute_status` text;--> statement-breakpoint
CREATE INDEX `checkout_sessions_payment_intent_idx` ON `checkout_sessions` (`payment_intent_id`);