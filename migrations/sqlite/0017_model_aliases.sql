CREATE TABLE `model_aliases` (
	`name` text PRIMARY KEY NOT NULL,
	`models` text NOT NULL,
	`created_at` integer NOT NULL
);
