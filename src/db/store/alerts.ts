import { alertTransition, type AlertStore, type PendingAlert } from "../../core/alerts/low-balance.ts";
import { nanos, type Nanos } from "../../core/money.ts";
import type { Database } from "../database.ts";
import { orgPlaceholderEmail } from "./orgs/orgs.ts";
import type { Dialect } from "../migration-files.ts";
import { big, bigOrNull, exec, first, int, rows, type Row, type Work } from "../sql.ts";
import { queueBalanceLowEvent } from "./webhooks.ts";

/** The account columns appendLedger reads back after moving a balance, for the alert. */
export const ALERT_STATE_COLUMNS = "email, alert_threshold_nanos, alert_armed";

/**
 * Follows a balance move of `amount` that left the account as `account` (its balance and
 * alert columns): queues the low-balance e-mail and disarms when the move crossed the
 * threshold downward, re-arms once the balance is back. Runs in the ledger entry's
 * transaction, after the account row was updated (and so locked), so the queued alert and the
 * balance change commit together and two moves cannot both see the crossing.
 */
export function* followLowBalanceAlert(accountId: string, account: Row, amount: Nanos, now: number): Work<void> {
  const after = nanos(big(account.balance_nanos));
  const threshold = bigOrNull(account.alert_threshold_nanos);
  const transition = alertTransition({
    before: nanos(after - amount),
    after,
    threshold: threshold === null ? null : nanos(threshold),
    armed: int(account.alert_armed) === 1,
  });
  if (transition === "rearm") yield* exec("UPDATE accounts SET alert_armed = 1 WHERE id = ?", accountId);
  if (transition !== "alert") return;
  yield* exec("UPDATE accounts SET alert_armed = 0 WHERE id = ?", accountId);
  yield* queueBalanceLowEvent(accountId, after, nanos(threshold as bigint), now);
  yield* exec(
    `INSERT INTO alert_outbox (id, account_id, email, balance_nanos, threshold_nanos, created_at, next_attempt_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    Bun.randomUUIDv7(), accountId, account.email, after, threshold, now, now,
  );
}

const toPendingAlert = (r: Row): PendingAlert => ({
  id: r.id as string,
  accountId: r.account_id as string,
  email: r.email as string,
  kind: r.kind === "account" || r.kind === "webhook" ? r.kind : "low_balance",
  balance: nanos(big(r.balance_nanos)),
  threshold: nanos(big(r.threshold_nanos)),
  subject: (r.subject as string | null) ?? null,
  text: (r.body as string | null) ?? null,
  createdAt: int(r.created_at),
  attempts: int(r.attempts),
});

function* claimDueAlerts(dialect: Dialect, input: Parameters<AlertStore["claimDueAlerts"]>[0]): Work<PendingAlert[]> {
  const channel = input.channel === "webhook" ? "kind = 'webhook'" : "kind <> 'webhook'";
  // On Postgres, instances claiming at once skip each other's rows (SKIP LOCKED) and so share
  // the work. The outer WHERE repeats the due condition: a row chosen by two claimers anyway is
  // re-checked after the first one's update and skipped by the second.
  const claimed = yield* rows(
    `UPDATE alert_outbox SET next_attempt_at = ?, attempts = attempts + 1
     WHERE id IN (SELECT id FROM alert_outbox WHERE sent_at IS NULL AND next_attempt_at <= ? AND ${channel}
                  ORDER BY next_attempt_at LIMIT ?${dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : ""})
       AND sent_at IS NULL AND next_attempt_at <= ?
     RETURNING id, account_id, email, kind, balance_nanos, threshold_nanos, subject, created_at, attempts,
       CASE WHEN kind = 'account' THEN (SELECT t.body FROM account_mail_texts t WHERE t.outbox_id = alert_outbox.id) ELSE body END AS body`,
    input.claimUntil, input.now, input.limit, input.now,
  );
  const alerts = claimed.map(toPendingAlert).sort((a, b) => a.createdAt - b.createdAt);
  for (const alert of alerts) if (alert.kind !== "webhook" && alert.email === orgPlaceholderEmail(alert.accountId)) alert.email = yield* orgRecipient(alert.accountId);
  return alerts;
}

/**
 * An organization's e-mails (its low-balance alert, a failed automatic top-up) go to its first owner: the placeholder its
 * account row holds, which every settlement path copies, is no address.
 */
function* orgRecipient(orgId: string): Work<string> {
  const owner = yield* first(
    `SELECT a.email FROM memberships m JOIN accounts a ON a.id = m.user_id WHERE m.org_id = ? AND m.role = 'owner'
     ORDER BY m.joined_at, m.user_id LIMIT 1`,
    orgId,
  );
  return (owner?.email as string | undefined) ?? orgPlaceholderEmail(orgId);
}

export const alertStore = (db: Database): AlertStore => ({
  claimDueAlerts: (input) => db.transaction(claimDueAlerts(db.dialect, input)),
  markAlertSent: (id, now, answer) => db.transaction(markAlertSent(id, now, answer ?? null)),
  eraseSentAccountMailTexts: async () => {
    // SQLite zeroed the deleted text in its page (secure_delete), but the WAL still holds the page
    // as it was until a checkpoint resets it: one that truncates it leaves the link nowhere on disk.
    if (db.dialect === "sqlite") await db.run(exec("PRAGMA wal_checkpoint(TRUNCATE)"));
    else await db.transaction(rewriteAccountMailTexts());
  },
  markAlertFailed: async (id, error, retryAt) => {
    await db.run(exec(
      "UPDATE alert_outbox SET next_attempt_at = ?, last_error = ?, answer = CASE WHEN kind = 'webhook' THEN ? END WHERE id = ? AND sent_at IS NULL",
      retryAt, error, error, id,
    ));
  },
});

/**
 * Postgres leaves a deleted row in its page until the page is reused, even after VACUUM; VACUUM
 * FULL copies along a row that a transaction older than its deletion might still see, and the
 * gateway's own requests keep such transactions open. TRUNCATE gives the table (its index and
 * TOAST) new files and drops the old ones whoever is still running, so the live rows (unsent
 * e-mails: a few at most) are read and written back around it. The lock comes first, so that no
 * e-mail is queued between the read and the TRUNCATE; it holds back queueing another account
 * e-mail and the sender's claims for a few milliseconds, and no chat request touches the table.
 */
function* rewriteAccountMailTexts(): Work<void> {
  yield* exec("LOCK TABLE account_mail_texts IN ACCESS EXCLUSIVE MODE");
  const unsent = yield* rows("SELECT outbox_id, body FROM account_mail_texts");
  yield* exec("TRUNCATE account_mail_texts");
  for (const text of unsent) yield* exec("INSERT INTO account_mail_texts (outbox_id, body) VALUES (?, ?)", text.outbox_id, text.body);
}

/**
 * Marks a message sent. The subject stays as the record, and so does a webhook event's body; an
 * account e-mail's text is deleted, since it carries a live link (eraseSentAccountMailTexts then
 * wipes it from the disk).
 */
function* markAlertSent(id: string, now: number, answer: string | null): Work<void> {
  const sent = yield* first("UPDATE alert_outbox SET sent_at = ?, last_error = NULL, answer = ? WHERE id = ? RETURNING kind", now, answer, id);
  if (sent?.kind === "account") yield* exec("DELETE FROM account_mail_texts WHERE outbox_id = ?", id);
}

/**
 * Queues an account e-mail (verification, reset, invitation) to `email`, in the caller's
 * transaction: the outbox row, and its text, with its live link, in a table of its own.
 */
export function* queueAccountMail(accountId: string, email: string, mail: { subject: string; text: string }, now: number): Work<void> {
  const id = Bun.randomUUIDv7();
  yield* exec(
    `INSERT INTO alert_outbox (id, account_id, email, kind, balance_nanos, threshold_nanos, subject, created_at, next_attempt_at)
     VALUES (?, ?, ?, 'account', 0, 0, ?, ?, ?)`,
    id, accountId, email, mail.subject, now, now,
  );
  yield* exec("INSERT INTO account_mail_texts (outbox_id, body) VALUES (?, ?)", id, mail.text);
}
