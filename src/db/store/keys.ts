import { keyStatus } from "../../core/keys.ts";
import type { ApiKey, KeyChange, KeyHolder, KeyManagementStore, KeyStore, NewKey, RotateOutcome } from "../../core/store.ts";
import type { Database } from "../database.ts";
import type { Dialect } from "../migration-files.ts";
import { first, int, rows, type Work } from "../sql.ts";
import { keyLookup } from "./key-lookup.ts";
import { lockScope } from "./rate-limits.ts";
import { KEY_COLUMNS, toKey } from "./rows.ts";
import { setClause } from "./set-clause.ts";

function* createKey(input: NewKey): Work<ApiKey> {
  const row = yield* first(
    `INSERT INTO api_keys (id, account_id, name, prefix, hash, origin, created_at, expires_at, credit_limit_nanos,
       usd_per_hour_nanos, requests_per_hour)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${KEY_COLUMNS}`,
    Bun.randomUUIDv7(), input.accountId, input.name, input.prefix, input.hash, input.origin, input.now,
    input.expiresAt, input.creditLimit, input.usdPerHour, input.requestsPerHour,
  );
  if (!row) throw new Error("key insert returned no row");
  return toKey(row);
}

export const keyStore = (db: Database): KeyStore => ({
  createKey: (input) => db.transaction(createKey(input)),
  findKeyByHash: keyLookup(db),
});

function* listKeys(accountId: string): Work<ApiKey[]> {
  return (yield* rows(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at DESC, id DESC`, accountId))
    .map(toKey);
}

function* findKey(id: string): Work<ApiKey | null> {
  const row = yield* first(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`, id);
  return row ? toKey(row) : null;
}

function* createKeyWithinLimit(
  dialect: Dialect,
  input: NewKey,
  limit: { count: number; windowMs: number },
): Work<{ created: ApiKey } | { retryAfterSeconds: number }> {
  // The count and the insert must not interleave with another request's, on any instance.
  yield* lockScope(dialect, `keys:${input.origin}:${input.accountId}`);
  const window = yield* first(
    "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM api_keys WHERE account_id = ? AND origin = ? AND created_at > ?",
    input.accountId, input.origin, input.now - limit.windowMs,
  );
  if (int(window?.n) >= limit.count) {
    const reopensAt = int(window?.oldest) + limit.windowMs;
    return { retryAfterSeconds: Math.max(1, Math.ceil((reopensAt - input.now) / 1000)) };
  }
  return { created: yield* createKey(input) };
}

const KEY_CHANGE_COLUMNS = {
  name: "name",
  expiresAt: "expires_at",
  creditLimit: "credit_limit_nanos",
  usdPerHour: "usd_per_hour_nanos",
  requestsPerHour: "requests_per_hour",
} as const;

function* updateKey(accountId: string, id: string, change: KeyChange): Work<ApiKey | null> {
  const set = setClause(change, KEY_CHANGE_COLUMNS);
  const row = set.sql === ""
    ? yield* first(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ? AND account_id = ?`, id, accountId)
    : yield* first(
        `UPDATE api_keys SET ${set.sql} WHERE id = ? AND account_id = ? RETURNING ${KEY_COLUMNS}`,
        ...set.params, id, accountId,
      );
  return row ? toKey(row) : null;
}

function* revokeKey(accountId: string, id: string, now: number): Work<ApiKey | null> {
  const row = yield* first(
    `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`,
    now, id, accountId,
  );
  return row ? toKey(row) : null;
}

function* rotateKey(accountId: string, id: string, replacement: { prefix: string; hash: string }, now: number): Work<RotateOutcome> {
  const current = yield* first(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ? AND account_id = ?`, id, accountId);
  if (!current) return { refused: "not_found" };
  const key = toKey(current);
  const status = keyStatus(key, now);
  if (status !== "active") return { refused: status === "expired" ? "expired" : "not_found" };
  // Re-checked by the UPDATE itself: of two concurrent rotations only one revokes, and only it replaces.
  const revoked = yield* first("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING id", now, id);
  if (!revoked) return { refused: "not_found" };
  const rotated = yield* createKey({
    accountId, name: key.name, ...replacement, origin: "rotation", expiresAt: key.expiresAt,
    creditLimit: key.creditLimit, usdPerHour: key.usdPerHour, requestsPerHour: key.requestsPerHour, now,
  });
  return { rotated };
}

// Key IDs are UUIDs. Any other string, from a URL path or the CLI, names no key and is not
// sent to the database at all: Postgres refuses a parameter holding a NUL with an error.
const KEY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const keyManagementStore = (db: Database): KeyManagementStore => ({
  listKeys: (accountId) => db.run(listKeys(accountId)),
  findKey: async (id) => (KEY_ID.test(id) ? db.run(findKey(id)) : null),
  createKeyWithinLimit: (input, limit) => db.transaction(createKeyWithinLimit(db.dialect, input, limit)),
  updateKey: async (accountId, id, change) => (KEY_ID.test(id) ? db.transaction(updateKey(accountId, id, change)) : null),
  revokeKey: async (accountId, id, now) => (KEY_ID.test(id) ? db.transaction(revokeKey(accountId, id, now)) : null),
  rotateKey: async (accountId, id, replacement, now) =>
    KEY_ID.test(id) ? db.transaction(rotateKey(accountId, id, replacement, now)) : { refused: "not_found" },
});
