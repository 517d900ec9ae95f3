// The chat path's key lookup: the key and what authentication needs of its account, in one
// round trip. Every chat request makes it (on Postgres a request alone makes it inside its
// admission, billing/admit-by-key.ts), so it is the one store read kept hand-tuned.
import type { Caller } from "../../../core/keys/auth.ts";
import { batched } from "../../batched.ts";
import type { Database } from "../../database.ts";
import { apiKeys } from "../../schema/sqlite.ts";
import { intOrNull, rows, type Row, type Work } from "../../sql.ts";
import { record } from "../../typed.ts";
import { KEY_COLUMNS, toKey } from "../rows.ts";

type Found = Caller | null;

// Scalar subqueries rather than a join, because SQLite answers this form several times faster.
export const KEY_WITH_HOLDER = (where: string) => `SELECT ${KEY_COLUMNS}, k.hash,
  (SELECT banned_at FROM accounts WHERE id = k.account_id) AS banned_at,
  (SELECT deleted_at FROM accounts WHERE id = k.account_id) AS deleted_at,
  EXISTS (SELECT 1 FROM accounts WHERE id = k.account_id) AS holder_exists
  FROM api_keys k WHERE ${where}`;
const BY_HASH = KEY_WITH_HOLDER("k.hash = ?");
const BY_HASHES = KEY_WITH_HOLDER("k.hash = ANY(?::text[])");

export function found(row: Row | undefined): Found {
  // A key whose account row is gone is as good as unknown.
  if (!row || !row.holder_exists) return null;
  const key = toKey(record(apiKeys, row));
  return { key, account: { id: key.accountId, bannedAt: intOrNull(row.banned_at), deletedAt: intOrNull(row.deleted_at) } };
}

export function* findKeyByHash(hash: string): Work<Found> {
  return found((yield* rows(BY_HASH, hash))[0]);
}

/** Postgres: the lookups of concurrent requests in one statement (see `batched`). */
export function* findKeysByHash(hashes: string[]): Work<Found[]> {
  // A lookup alone asks by value: Postgres plans `= ANY(array)` afresh on every execution
  // (its generic plan looks costlier), which took a lone request's lookup from ~110 to ~220 µs.
  if (hashes.length === 1) return [yield* findKeyByHash(hashes[0] as string)];
  const byHash = new Map((yield* rows(BY_HASHES, hashes)).map((row) => [row.hash as string, row]));
  return hashes.map((hash) => found(byHash.get(hash)));
}

// On Postgres each statement costs Bun's client tens of microseconds of CPU, more than the
// lookup itself; under load the requests of a moment share one. A request alone runs at once.
const BATCH = { max: 200, inFlight: 4 };

export function keyLookup(db: Database): (hash: string) => Promise<Found> {
  if (db.dialect === "sqlite") return (hash) => db.run(findKeyByHash(hash));
  return batched((hashes: string[]) => db.run(findKeysByHash(hashes)), BATCH);
}
