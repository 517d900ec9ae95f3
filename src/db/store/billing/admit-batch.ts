import type { NewReservation } from "../../../core/store.ts";
import { rows, type Work } from "../../sql.ts";
import { ASYNC_COMMIT } from "./async-commit.ts";

/**
 * Postgres only: admits the requests of a batch (see `batched`) in one statement, and so one
 * round trip and one commit, when nothing but the balance and the concurrency limit can refuse
 * them on a personal account (the key's limits as it was just looked up, the account's safety limit in the
 * statement). Per account it is all or nothing: the batch's requests of an account are admitted
 * together if the locked, latest row has room and balance for all of them. Account rows are
 * locked in id order, as every batch does, so that concurrent batches cannot deadlock. Returns
 * the reservation ID per request, or null for one that needs the full decision (which also
 * words a refusal).
 */
export function* admitMany(items: NewReservation[]): Work<(string | null)[]> {
  const ids = items.map(() => Bun.randomUUIDv7());
  // The rows are also named by array (`id = ANY(…)`), so that Postgres reaches them through the
  // primary key rather than scanning a table whose rows are rewritten thousands of times a second.
  const accounts = [...new Set(items.map((r) => r.account.id))];
  const admitted = yield* rows(
    `WITH ${ASYNC_COMMIT}, input AS (
       SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[])
         AS i(id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at, max_inflight)),
     per_account AS (
       SELECT account_id, SUM(amount_nanos) AS amount, COUNT(*) AS requests, MIN(max_inflight) AS max_inflight
       FROM input GROUP BY account_id),
     locked AS MATERIALIZED (SELECT id FROM accounts WHERE id = ANY(?::text[]) AND (SELECT off FROM async_commit) ORDER BY id FOR UPDATE SKIP LOCKED),
     admitted AS (
       UPDATE accounts a SET reserved_nanos = a.reserved_nanos + p.amount, inflight = a.inflight + p.requests
       FROM per_account p WHERE a.id = ANY(?::text[]) AND a.id = p.account_id AND a.id IN (SELECT id FROM locked)
         AND a.inflight + p.requests <= p.max_inflight AND a.balance_nanos - a.reserved_nanos >= p.amount
         AND a.spend_limit_nanos IS NULL AND a.kind = 'person'
       RETURNING a.id)
     INSERT INTO reservations (id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at)
     SELECT id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at
     FROM input WHERE account_id IN (SELECT id FROM admitted) RETURNING id`,
    ids,
    items.map((r) => r.account.id),
    items.map((r) => r.key.id),
    items.map((r) => r.model),
    items.map((r) => r.requestedModel),
    items.map((r) => r.amount),
    items.map((r) => r.now),
    items.map((r) => r.now + r.leaseMs),
    items.map((r) => r.policy.maxConcurrentRequests),
    accounts,
    accounts,
  );
  const taken = new Set(admitted.map((r) => r.id as string));
  return ids.map((id) => (taken.has(id) ? id : null));
}
