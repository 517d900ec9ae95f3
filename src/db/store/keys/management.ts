// A management key as authentication reads it: the key, its organization and its maker's role
// there, in one statement at each use, so that a demotion or a removal takes effect at once.
import type { Role } from "../../../core/orgs/roles.ts";
import type { ManagementKeyFound } from "../../../core/store.ts";
import { apiKeys } from "../../schema/sqlite.ts";
import { rows, type Work } from "../../sql.ts";
import { record } from "../../typed.ts";
import { KEY_COLUMNS, toKey } from "../rows.ts";

const BY_HASH = `SELECT ${KEY_COLUMNS}, origin,
  (SELECT o.name FROM organizations o JOIN accounts a ON a.id = o.id AND a.deleted_at IS NULL WHERE o.id = k.account_id) AS org_name,
  (SELECT m.role FROM memberships m WHERE m.org_id = k.account_id AND m.user_id = k.owner_id) AS maker_role
  FROM api_keys k WHERE k.hash = ? AND k.kind = 'management'`;

export function* findManagementKey(hash: string): Work<ManagementKeyFound | null> {
  const [row] = yield* rows(BY_HASH, hash);
  if (!row) return null;
  const key = toKey(record(apiKeys, row));
  const org = row.org_name === null || row.org_name === undefined ? null : { id: key.accountId, name: String(row.org_name) };
  return { key, origin: row.origin as ManagementKeyFound["origin"], org, makerRole: (row.maker_role ?? null) as Role | null };
}
