CREATE TABLE `response_items` (
	`response_id` text NOT NULL,
	`position` integer NOT NULL,
	`account_id` text NOT NULL,
	`item_id` text NOT NULL,
	`kind` text NOT NULL,
	`body` text NOT NULL,
	PRIMARY KEY(`response_id`, `position`)
);
--> statement-breakpoint
CREATE INDEX `response_items_item_idx` ON `response_items` (`account_id`,`item_id`);--> statement-breakpoint
CREATE TABLE `stored_responses` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`previous_response_id` text,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `stored_responses_account_idx` ON `stored_responses` (`account_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `stored_responses_expires_idx` ON `stored_responses` (`expires_at`);