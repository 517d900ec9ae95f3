CREATE TABLE "account_mail_texts" (
	"outbox_id" text PRIMARY KEY NOT NULL,
	"body" text NOT NULL
);
--> statement-breakpoint
-- Account e-mails queued and not yet sent keep their text, now in account_mail_texts; the outbox holds none.
INSERT INTO "account_mail_texts" ("outbox_id", "body")
SELECT "id", "body" FROM "alert_outbox" WHERE "kind" = 'account' AND "sent_at" IS NULL AND "body" IS NOT NULL;
--> statement-breakpoint
UPDATE "alert_outbox" SET "body" = NULL WHERE "kind" = 'account' AND "body" IS NOT NULL;
