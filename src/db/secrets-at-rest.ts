// The secrets a database keeps for reading back (TOTP and webhook signing secrets), at start-up:
// a database from before they were encrypted has them in clear, and the first start with a key
// encrypts them in place; a start without a key over a database that holds encrypted ones is
// refused, since none of them could be read (no sign-in with TOTP, no signed event).
import { storedSecrets, type SecretKind, type StoredSecrets } from "../core/stored-secrets.ts";
import type { Database } from "./database.ts";
import { exec, first, rows, type Work } from "./sql.ts";

/** Each column that keeps such a secret: its table, the row's key column, the column and its kind. */
const COLUMNS: { table: string; id: string; column: string; kind: SecretKind }[] = [
  { table: "accounts", id: "id", column: "totp_secret", kind: "totp" },
  { table: "accounts", id: "id", column: "totp_pending_secret", kind: "totp" },
  { table: "webhook_endpoints", id: "account_id", column: "secret", kind: "webhook" },
];

// Neither a base32 TOTP secret nor `whsec_` starts with the prefix (core/stored-secrets.ts).
const SEALED = "'gws1.%'";

/**
 * Encrypts every secret still in clear; answers how many. Each row is written only while it
 * still holds the clear value that was read, so a value changed meanwhile is left alone, and two
 * instances starting together (or a second start) encrypt nothing twice.
 */
function* sealInPlace(secrets: StoredSecrets): Work<number> {
  let sealed = 0;
  for (const { table, id, column, kind } of COLUMNS) {
    const clear = yield* rows(`SELECT ${id} AS id, ${column} AS value FROM ${table} WHERE ${column} IS NOT NULL AND ${column} NOT LIKE ${SEALED}`);
    for (const row of clear) {
      const value = row.value as string;
      const written = yield* first(
        `UPDATE ${table} SET ${column} = ? WHERE ${id} = ? AND ${column} = ? RETURNING ${id}`,
        secrets.seal(kind, value), row.id, value,
      );
      if (written) sealed++;
    }
  }
  return sealed;
}

function* holdsSealed(): Work<boolean> {
  for (const { table, column } of COLUMNS) {
    if (yield* first(`SELECT 1 AS found FROM ${table} WHERE ${column} LIKE ${SEALED} LIMIT 1`)) return true;
  }
  return false;
}

export type SecretsAtStart =
  | { secrets: StoredSecrets; sealedNow: number }
  | { refused: string };

/** The stored secrets under `key` (the deployment's, or null), the database brought to hold them encrypted. */
export async function secretsAtStart(db: Database, key: Uint8Array | null): Promise<SecretsAtStart> {
  const secrets = storedSecrets(key);
  if (!key) {
    if (await db.run(holdsSealed())) {
      return { refused: "the database holds secrets encrypted with the deployment's key, and no key is set: set SECRET_KEY (or SECRET_KEY_FILE) to the key they were encrypted with" };
    }
    return { secrets, sealedNow: 0 };
  }
  const sealedNow = await db.transaction(sealInPlace(secrets));
  if (sealedNow > 0) await eraseOldValues(db);
  return { secrets, sealedNow };
}

/**
 * Leaves the values that were in clear nowhere in the database's files: SQLite zeroes what it
 * frees (secure_delete) but its WAL keeps the old pages until a checkpoint truncates it; Postgres
 * keeps an updated row's old version in its page, even after VACUUM, until VACUUM FULL rewrites
 * the table (which copies it along if a transaction older than the update is still open: another
 * instance's, since this one does not serve yet). This runs once, on the first start with a key
 * over a database that had clear secrets; its lock is held for that rewrite only.
 */
async function eraseOldValues(db: Database): Promise<void> {
  await db.run(exec(db.dialect === "sqlite" ? "PRAGMA wal_checkpoint(TRUNCATE)" : "VACUUM FULL accounts, webhook_endpoints"));
}
