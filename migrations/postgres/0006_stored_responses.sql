CREATE TABLE "response_items" (
	"response_id" text NOT NULL,
	"position" bigint NOT NULL,
	"account_id" text NOT NULL,
	"item_id" text NOT NULL,
	"kind" text NOT NULL,
	"body" text NOT NULL,
	CONSTRAINT "response_items_response_id_position_pk" PRIMARY KEY("response_id","position")
);
--> statement-breakpoint
CREATE TABLE "stored_responses" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"previous_response_id" text,
	"body" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "response_items_item_idx" ON "response_items" USING btree ("account_id","item_id");--> statement-breakpoint
CREATE INDEX "stored_responses_account_idx" ON "stored_responses" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "stored_responses_expires_idx" ON "stored_responses" USING btree ("expires_at");