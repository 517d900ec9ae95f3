ALTER TABLE `accounts` ADD `email_skeleton` text;--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_email_skeleton_unique` ON `accounts` (`email_skeleton`);--> statement-breakpoint
ALTER TABLE `free_credit_claims` ADD `email_skeleton` text;--> statement-breakpoint
CREATE UNIQUE INDEX `free_credit_claims_email_skeleton_unique` ON `free_credit_claims` (`email_skeleton`);