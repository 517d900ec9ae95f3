CREATE TABLE "webhook_endpoints" (
	"account_id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"secret" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_outbox" ADD COLUMN "answer" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "kind" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_models" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_ips" text;