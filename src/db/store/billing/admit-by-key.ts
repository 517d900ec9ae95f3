import { isRestricted } from "../../../core/keys/allowlist.ts";
import { keyRefusal } from "../../../core/keys/auth.ts";
import type { Admission, BillingStore, KeyAdmission } from "../../../core/store.ts";
import { batched } from "../../batched.ts";
import type { Database } from "../../database.ts";
import { rows, type Work } from "../../sql.ts";
import { findKeyByHash, findKeysByHash, found, KEY_WITH_HOLDER } from "../keys/lookup.ts";
import { admitMany } from "./admit-batch.ts";
import { ASYNC_COMMIT } from "./async-commit.ts";
import { hasKeyLimits, reserve } from "./reserve.ts";

/**
 * Postgres, one request alone: the key found by its hash and, when `keyRefusal` would let it
 * through and nothing but the balance and the concurrency limit can refuse it, the reservation
 * held, in one statement and so one round trip (the lookup alone was ~160 µs of a lone
 * request's time). The conditions on the key repeat `keyRefusal`'s, `hasKeyLimits`'s and `isRestricted`'s; those on
 * the account are read from its row as locked, as `admitMany` reads them (an organization's
 * requests, with their per-person concurrency and members' caps, are left to `reserve`). Returns the key's row
 * as the lookup does (none when unknown) and whether it was admitted.
 */
const ADMIT_ALONE = `WITH ${ASYNC_COMMIT},
     found AS MATERIALIZED (${KEY_WITH_HOLDER("k.hash = $1::text AND (SELECT off FROM async_commit)")}),
     admitted AS (
       UPDATE accounts a SET reserved_nanos = a.reserved_nanos + $2::bigint, inflight = a.inflight + 1
       FROM found k WHERE a.id = k.account_id
         AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at >= $3::bigint)
         AND k.credit_limit_nanos IS NULL AND k.usd_per_hour_nanos IS NULL AND k.requests_per_hour IS NULL
         AND k.allowed_models IS NULL AND k.allowed_ips IS NULL AND k.kind = 'api'
         AND a.deleted_at IS NULL AND a.banned_at IS NULL AND a.spend_limit_nanos IS NULL AND a.kind = 'person'
         AND a.inflight + 1 <= $4::bigint AND a.balance_nanos - a.reserved_nanos >= $2::bigint
       RETURNING a.id),
     reserved AS (
       INSERT INTO reservations (id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at)
       SELECT $5::text, account_id, id, $6::text, $7::text, $2::bigint, $3::bigint, $8::bigint FROM found
       WHERE account_id IN (SELECT id FROM admitted) RETURNING id)
     SELECT found.*, EXISTS (SELECT 1 FROM reserved) AS admitted FROM found`;

function* admitAlone(keyHash: string, admission: Admission): Work<KeyAdmission> {
  const id = Bun.randomUUIDv7();
  const [row] = yield* rows(
    ADMIT_ALONE,
    keyHash, admission.amount, admission.now, admission.policy.maxConcurrentRequests, id, admission.model,
    admission.requestedModel, admission.now + admission.leaseMs,
  );
  return { found: found(row), reservationId: row?.admitted ? id : null };
}

type Asked = { keyHash: string; admission: Admission };

/**
 * Postgres, the requests of a batch (see `batched`): one alone in one statement; several with
 * their keys in one lookup, then those that may go on and have no limits admitted together by
 * `admitMany`, two statements for the batch.
 */
function* admitBatch(items: Asked[]): Work<KeyAdmission[]> {
  const [alone] = items;
  if (alone && items.length === 1) return [yield* admitAlone(alone.keyHash, alone.admission)];
  const keys = yield* findKeysByHash(items.map((item) => item.keyHash));
  const admissible = items.flatMap(({ admission }, i) => {
    const caller = keys[i] ?? null;
    const plain = caller && !keyRefusal(caller, admission.now) && !hasKeyLimits(caller.key) && !isRestricted(caller.key);
    return plain ? [{ i, reservation: { ...admission, ...caller } }] : [];
  });
  const ids = admissible.length > 0 ? yield* admitMany(admissible.map((a) => a.reservation)) : [];
  const admitted = new Map(admissible.map((a, n) => [a.i, ids[n] ?? null]));
  return items.map((_, i) => ({ found: keys[i] ?? null, reservationId: admitted.get(i) ?? null }));
}

// At most 200 requests share a batch, and at most four batches run at once, leaving the
// pool's other connections to settlements and the rest.
const BATCH = { max: 200, inFlight: 4 };

/**
 * SQLite: the key found and, when only its account can refuse it (`keyRefusal` lets it through,
 * it has no limits and no allowlists), held in the same transaction by `reserve`'s own
 * decision. A refusal holds nothing and is left to the caller's `reserve`, which words it. One
 * transaction rather than a lookup and then one: a request alone pays its locks and its turn of
 * the event loop once.
 */
function* admitInOne(keyHash: string, admission: Admission): Work<KeyAdmission> {
  const found = yield* findKeyByHash(keyHash);
  if (!found || keyRefusal(found, admission.now) || hasKeyLimits(found.key) || isRestricted(found.key)) return { found, reservationId: null };
  const outcome = yield* reserve("sqlite", { ...admission, account: found.account, key: found.key });
  return { found, reservationId: outcome.ok ? outcome.reservationId : null };
}

/** `BillingStore.admitByKey`: in one transaction on SQLite (`admitInOne`), in one statement for a request alone on Postgres. */
export function admitByKey(db: Database): BillingStore["admitByKey"] {
  if (db.dialect === "sqlite") return (keyHash, admission) => db.transaction(admitInOne(keyHash, admission));
  const admit = batched((items: Asked[]) => db.run(admitBatch(items)), BATCH);
  return (keyHash, admission) => admit({ keyHash, admission });
}
