CREATE TABLE "auto_topups" (
	"account_id" text PRIMARY KEY NOT NULL,
	"pack_id" text NOT NULL,
	"threshold_nanos" bigint NOT NULL,
	"monthly_max_nanos" bigint NOT NULL,
	"enabled" bigint DEFAULT 1 NOT NULL,
	"customer_id" text,
	"payment_method_id" text,
	"card_brand" text,
	"card_last4" text,
	"pending_since" bigint,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "auto_topup" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "invoice_id" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "invoice_url" text;