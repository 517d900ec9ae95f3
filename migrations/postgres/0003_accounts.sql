CREATE TABLE "audit_events" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"at" bigint NOT NULL,
	"type" text NOT NULL,
	"ip" text,
	"detail" text
);
--> statement-breakpoint
CREATE TABLE "auth_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"purpose" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint
);
--> statement-breakpoint
CREATE TABLE "recovery_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"used_at" bigint
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "email_verified_at" bigint;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "signup_ip" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "totp_secret" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "totp_pending_secret" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "totp_enabled_at" bigint;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "alert_outbox" ADD COLUMN "kind" text DEFAULT 'low_balance' NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_outbox" ADD COLUMN "subject" text;--> statement-breakpoint
ALTER TABLE "alert_outbox" ADD COLUMN "body" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "last_seen_at" bigint;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "ip" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "user_agent" text;--> statement-breakpoint
CREATE INDEX "audit_events_account_idx" ON "audit_events" USING btree ("account_id","at");--> statement-breakpoint
CREATE INDEX "audit_events_at_idx" ON "audit_events" USING btree ("at");--> statement-breakpoint
CREATE INDEX "auth_tokens_account_idx" ON "auth_tokens" USING btree ("account_id","purpose");--> statement-breakpoint
CREATE INDEX "recovery_codes_account_idx" ON "recovery_codes" USING btree ("account_id");