ALTER TABLE "usage_logs" ADD COLUMN "cached_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "saved_nanos" bigint DEFAULT 0 NOT NULL;