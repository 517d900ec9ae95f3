import type { Account, AccountChange, FreeCreditOffer, SignUp, UserStore } from "../../core/store.ts";
import type { Database } from "../database.ts";
import type { Dialect } from "../migration-files.ts";
import { exec, first, int, rows, type Work } from "../sql.ts";
import { appendLedger, createAccount, getAccount } from "./accounts.ts";
import { lockScope } from "./rate-limits.ts";
import { ACCOUNT_COLUMNS, toAccount } from "./rows.ts";
import { setClause } from "./set-clause.ts";

/**
 * Grants the sign-up credits unless the e-mail identity has claimed them before or its IP has
 * had its share today. The count, the claim and the grant happen under one lock on the IP's
 * scope, so concurrent sign-ups (on any instance) cannot both take the last place.
 */
function* claimFreeCredits(dialect: Dialect, accountId: string, offer: FreeCreditOffer, now: number): Work<boolean> {
  if (offer.perIpPerDay <= 0) return false;
  yield* lockScope(dialect, offer.ipScope);
  yield* exec("DELETE FROM rate_events WHERE scope = ? AND at < ?", offer.ipScope, offer.dayStart);
  const today = yield* first("SELECT COUNT(*) AS n FROM rate_events WHERE scope = ?", offer.ipScope);
  if (int(today?.n) >= offer.perIpPerDay) return false;
  const claimed = yield* first(
    `INSERT INTO free_credit_claims (email, account_id, created_at) VALUES (?, ?, ?)
     ON CONFLICT (email) DO NOTHING RETURNING email`,
    offer.identity, accountId, now,
  );
  if (!claimed) return false;
  yield* exec("INSERT INTO rate_events (id, scope, at) VALUES (?, ?, ?)", Bun.randomUUIDv7(), offer.ipScope, now);
  yield* appendLedger({
    accountId, amount: offer.amount, kind: "grant", note: "free credits on sign-up",
    idempotencyKey: `free-credits:${offer.identity}`, now,
  });
  return true;
}

function* signUp(dialect: Dialect, input: SignUp): Work<{ account: Account; freeCreditsGranted: boolean } | null> {
  const account = yield* createAccount({ email: input.email, passwordHash: input.passwordHash, now: input.now });
  if (!account) return null;
  if (!input.freeCredits || !(yield* claimFreeCredits(dialect, account.id, input.freeCredits, input.now))) {
    return { account, freeCreditsGranted: false };
  }
  return { account: (yield* getAccount(account.id)) ?? account, freeCreditsGranted: true };
}

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
  signUp: (input) => db.transaction(signUp(db.dialect, input)),
  findCredentials: (email) => db.run(findCredentials(email)),
  listAccounts: () => db.run(listAccounts()),
  updateAccount: (id, change) => db.transaction(updateAccount(id, change)),
});
