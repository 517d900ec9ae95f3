import type { Account, AccountChange, UserStore } from "../../core/store.ts";
import type { Database } from "../database.ts";
import { first, rows, type Work } from "../sql.ts";
import { getAccount } from "./accounts.ts";
import { ACCOUNT_COLUMNS, toAccount } from "./rows.ts";
import { setClause } from "./set-clause.ts";

function* findCredentials(email: string): Work<{ account: Account; passwordHash: string | null } | null> {
  const row = yield* first(`SELECT ${ACCOUNT_COLUMNS}, password_hash FROM accounts WHERE email = ?`, email);
  return row ? { account: toAccount(row), passwordHash: (row.password_hash as string | null) ?? null } : null;
}

function* listAccounts(): Work<Account[]> {
  return (yield* rows(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id`)).map(toAccount);
}

const ACCOUNT_CHANGE_COLUMNS = {
  alertThreshold: "alert_threshold_nanos",
  spendLimit: "spend_limit_nanos",
  bannedAt: "banned_at",
  deletedAt: "deleted_at",
  isAdmin: "is_admin",
} as const;

export function* updateAccount(id: string, change: AccountChange): Work<Account | null> {
  // Flags are 0/1 integers on both dialects.
  const set = setClause({ ...change, isAdmin: change.isAdmin === undefined ? undefined : change.isAdmin ? 1 : 0 }, ACCOUNT_CHANGE_COLUMNS);
  if (set.sql === "") return yield* getAccount(id);
  // A new threshold starts armed: the next debit that takes the balance below it alerts.
  const rearm = change.alertThreshold === undefined ? "" : ", alert_armed = 1";
  const row = yield* first(
    `UPDATE accounts SET ${set.sql}${rearm} WHERE id = ? RETURNING ${ACCOUNT_COLUMNS}`,
    ...set.params, id,
  );
  return row ? toAccount(row) : null;
}

export const userStore = (db: Database): UserStore => ({
  findCredentials: (email) => db.run(findCredentials(email)),
  listAccounts: () => db.run(listAccounts()),
  updateAccount: (id, change) => db.transaction(updateAccount(id, change)),
});
