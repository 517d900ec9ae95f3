import type { Account, ApiKey, KeyStore, NewKey } from "../../core/store.ts";
import type { Database } from "../database.ts";
import { first, type Work } from "../sql.ts";
import { KEY_COLUMNS, toAccount, toKey } from "./rows.ts";

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

// One round trip on the chat path: the key and its account together.
const KEY_WITH_ACCOUNT = `SELECT ${KEY_COLUMNS.replace(/(\w+)/g, "k.$1")},
  a.email, a.created_at AS a_created_at, a.balance_nanos, a.reserved_nanos, a.inflight, a.alert_threshold_nanos,
  a.spend_limit_nanos, a.banned_at, a.deleted_at
  FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ?`;

function* findKeyByHash(hash: string): Work<{ key: ApiKey; account: Account } | null> {
  const row = yield* first(KEY_WITH_ACCOUNT, hash);
  if (!row) return null;
  return { key: toKey(row), account: toAccount({ ...row, id: row.account_id, created_at: row.a_created_at }) };
}

export const keyStore = (db: Database): KeyStore => ({
  createKey: (input) => db.transaction(createKey(input)),
  findKeyByHash: (hash) => db.run(findKeyByHash(hash)),
});
