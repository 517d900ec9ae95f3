import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bigint, money } from "./columns.ts";

// Every e-mail the gateway sends: low-balance alerts (kind `low_balance`, written from the
// balance and threshold when sent) and account mails (kind `account`: verification, reset;
// balance and threshold 0, text in account_mail_texts), and webhook events (kind `webhook`).
export const alertOutbox = sqliteTable("alert_outbox", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  email: text("email").notNull(),
  balanceNanos: money("balance_nanos").notNull(),
  thresholdNanos: money("threshold_nanos").notNull(),
  kind: text("kind").notNull().default("low_balance"),
  subject: text("subject"),
  body: text("body"),
  createdAt: bigint("created_at").notNull(),
  attempts: bigint("attempts").notNull().default(0),
  nextAttemptAt: bigint("next_attempt_at").notNull(),
  sentAt: bigint("sent_at"),
  lastError: text("last_error"),
  // Webhook events: `subject` the type, `body` the signed JSON (kept), `answer` the receiver's last.
  answer: text("answer"),
}, (t) => [
  index("alert_outbox_pending_idx").on(t.sentAt, t.nextAttemptAt),
  // An account's recent webhook deliveries, as its settings list them.
  index("alert_outbox_account_idx").on(t.accountId, t.createdAt),
]);

// An unsent account e-mail's text, which carries a live link: deleted once sent. A table of its
// own, tiny and off the chat path, that Postgres can rewrite to drop the deleted texts' pages.
export const accountMailTexts = sqliteTable("account_mail_texts", { outboxId: text("outbox_id").primaryKey(), body: text("body").notNull() });

// An account's webhook endpoint (one at most) and its events' signing secret, kept as is (signing needs it).
export const webhookEndpoints = sqliteTable("webhook_endpoints", {
  accountId: text("account_id").primaryKey(),
  url: text("url").notNull(),
  secret: text("secret").notNull(),
  createdAt: bigint("created_at").notNull(),
});
