ALTER TABLE "checkout_sessions" ADD COLUMN "payment_intent_id" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "amount_paid_cents" bigint;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "refunded_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "refunded_nanos" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "disputed_cents" bigint;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "dispute_status" text;--> statement-breakpoint
CREATE INDEX "checkout_sessions_payment_intent_idx" ON "checkout_sessions" USING btree ("payment_intent_id");