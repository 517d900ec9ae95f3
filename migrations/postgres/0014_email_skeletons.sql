ALTER TABLE "accounts" ADD COLUMN "email_skeleton" text;--> statement-breakpoint
ALTER TABLE "free_credit_claims" ADD COLUMN "email_skeleton" text;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_email_skeleton_unique" ON "accounts" USING btree ("email_skeleton");--> statement-breakpoint
CREATE UNIQUE INDEX "free_credit_claims_email_skeleton_unique" ON "free_credit_claims" USING btree ("email_skeleton");