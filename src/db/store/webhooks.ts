// Webhook endpoints, and the events queued for them in the outbox (kind `webhook`): an event is
// queued in the transaction of what caused it, and only for an account that has an endpoint.
// The signing secret is kept encrypted (core/stored-secrets.ts): written sealed, read back opened.
import type { StoredSecrets } from "../../core/stored-secrets.ts";
import { bodyEventId, deliveredBody, eventBody, type WebhookEventType } from "../../core/webhooks/events.ts";
import type { WebhookDelivery, WebhookStore } from "../../core/webhooks/store.ts";
import type { Database } from "../database.ts";
import { nanos, type Nanos } from "../../core/money.ts";
import { big, exec, first, int, intOrNull, rows, storableText, type Row, type Work } from "../sql.ts";

/**
 * Queues `type` for the account's endpoint, if it has one; due at once. `id` is the event's
 * stable id; an event already queued under it is not queued again (`key.limit_reached` is
 * named per key, limit and hour, so a key refused all hour sends one). Its id when queued.
 */
export function* queueWebhookEvent(
  accountId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
  now: number,
  id: string = Bun.randomUUIDv7(),
): Work<string | null> {
  const queued = yield* first(
    `INSERT INTO alert_outbox (id, account_id, email, kind, balance_nanos, threshold_nanos, subject, body, created_at, next_attempt_at)
     SELECT ?, account_id, '', 'webhook', 0, 0, ?, ?, ?, ? FROM webhook_endpoints WHERE account_id = ?
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    id, type, eventBody(id, type, now, data), now, now, accountId,
  );
  return (queued?.id as string | undefined) ?? null;
}

/**
 * `balance.low` for each account with an endpoint, from a query's rows of (account id, balance,
 * threshold, time): the Postgres settlements cross the threshold inside one statement, so the
 * event is queued there as SQL. Its row keeps the balance and threshold, and its body is written
 * from them when it is sent (`deliveredBody`), the same on every retry. Postgres only
 * (`gen_random_uuid`); `queueBalanceLowEvent` writes the same row from JavaScript.
 */
export const queueBalanceLow = (crossings: string): string =>
  `INSERT INTO alert_outbox (id, account_id, email, kind, balance_nanos, threshold_nanos, subject, created_at, next_attempt_at)
       SELECT gen_random_uuid()::text, crossed.account_id, '', 'webhook', crossed.balance, crossed.threshold, 'balance.low', crossed.at, crossed.at
       FROM (${crossings}) AS crossed(account_id, balance, threshold, at) JOIN webhook_endpoints w ON w.account_id = crossed.account_id`;

/** `balance.low` queued from a balance move settled in JavaScript: the same row `queueBalanceLow` writes. */
export function* queueBalanceLowEvent(accountId: string, balance: Nanos, threshold: Nanos, now: number): Work<void> {
  yield* exec(
    `INSERT INTO alert_outbox (id, account_id, email, kind, balance_nanos, threshold_nanos, subject, created_at, next_attempt_at)
     SELECT ?, account_id, '', 'webhook', ?, ?, 'balance.low', ?, ? FROM webhook_endpoints WHERE account_id = ?`,
    Bun.randomUUIDv7(), balance, threshold, now, now, accountId,
  );
}

/** The columns a delivery is read from. */
const DELIVERY_COLUMNS = "id, subject, created_at, attempts, sent_at, next_attempt_at, answer, last_error, body, balance_nanos, threshold_nanos";

/** The body a row sends: as queued, or `balance.low`'s, written from the row's balance and threshold. */
const rowBody = (r: Row): string => deliveredBody({
  id: r.id as string, text: (r.body as string | null) ?? null, createdAt: int(r.created_at),
  balance: nanos(big(r.balance_nanos)), threshold: nanos(big(r.threshold_nanos)),
});

function toDelivery(r: Row): WebhookDelivery {
  const payload = rowBody(r);
  // A redelivery's row has an id of its own; the event's is the one its body carries.
  const id = bodyEventId(payload);
  return {
    id,
    type: r.subject as WebhookDelivery["type"],
    createdAt: int(r.created_at),
    attempts: int(r.attempts),
    sentAt: intOrNull(r.sent_at),
    nextAttemptAt: r.sent_at === null ? int(r.next_attempt_at) : null,
    answer: (r.answer as string | null) ?? (r.last_error as string | null) ?? null,
    payload,
    redelivery: id !== r.id,
  };
}

/**
 * The account's event queued again as a row of its own (a new id, due at once) with the
 * original's exact body, for the endpoint the account has now: the first delivery's answers stay
 * listed beside it. Copied from the original row, the one whose id is the event's.
 */
function* redeliver(accountId: string, eventId: string, now: number): Work<WebhookDelivery | null> {
  if (!storableText(eventId)) return null;
  const original = yield* first(
    `SELECT ${DELIVERY_COLUMNS} FROM alert_outbox WHERE id = ? AND account_id = ? AND kind = 'webhook'`, eventId, accountId,
  );
  if (!original) return null;
  const queued = yield* first(
    `INSERT INTO alert_outbox (id, account_id, email, kind, balance_nanos, threshold_nanos, subject, body, created_at, next_attempt_at)
     SELECT ?, account_id, '', 'webhook', 0, 0, ?, ?, ?, ? FROM webhook_endpoints WHERE account_id = ?
     RETURNING ${DELIVERY_COLUMNS}`,
    Bun.randomUUIDv7(), original.subject, rowBody(original), now, now, accountId,
  );
  return queued ? toDelivery(queued) : null;
}

export const webhookStore = (db: Database, secrets: StoredSecrets): WebhookStore => ({
  webhookEndpoint: async (accountId) => {
    const row = await db.run(first("SELECT url, secret, created_at FROM webhook_endpoints WHERE account_id = ?", accountId));
    return row ? { url: row.url as string, secret: secrets.open("webhook", row.secret as string), createdAt: int(row.created_at) } : null;
  },
  setWebhookEndpoint: async (accountId, endpoint) => {
    const sealed = secrets.seal("webhook", endpoint.secret);
    await db.transaction(exec(
      `INSERT INTO webhook_endpoints (account_id, url, secret, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, created_at = excluded.created_at`,
      accountId, endpoint.url, sealed, endpoint.createdAt,
    ));
  },
  removeWebhookEndpoint: async (accountId) => {
    await db.transaction(exec("DELETE FROM webhook_endpoints WHERE account_id = ?", accountId));
  },
  recentWebhookDeliveries: async (accountId, limit) =>
    (await db.run(rows(
      `SELECT ${DELIVERY_COLUMNS} FROM alert_outbox
       WHERE account_id = ? AND kind = 'webhook' ORDER BY created_at DESC, id DESC LIMIT ?`,
      accountId, limit,
    ))).map(toDelivery),
  queueWebhookEvent: (accountId, type, data, now) => db.transaction(queueWebhookEvent(accountId, type, data, now)),
  redeliverWebhookEvent: (accountId, eventId, now) => db.transaction(redeliver(accountId, eventId, now)),
});
