import { asc, eq } from "drizzle-orm";
import type { Account, AccountChange, UserStore } from "../../../core/store.ts";
import type { Database } from "../../database.ts";
import { accounts } from "../../schema/sqlite.ts";
import type { Work } from "../../sql.ts";
import { build, records } from "../../typed.ts";
import { getAccount } from "./records.ts";
import { toAccount } from "../rows.ts";

function* findCredentials(email: string): Work<{ account: Account; passwordHash: string | null } | null> {
  const [found] = yield* records(accounts, build.select().from(accounts).where(eq(accounts.email, email)));
  return found ? { account: toAccount(found), passwordHash: found.passwordHash } : null;
}

function* listAccounts(): Work<Account[]> {
  // People only: organizations are listed by `gateway orgs list`.
  const people = build.select().from(accounts).where(eq(accounts.kind, "person")).orderBy(asc(accounts.createdAt), asc(accounts.id));
  return (yield* records(accounts, people)).map(toAccount);
}

export function* updateAccount(id: string, change: AccountChange): Work<Account | null> {
  const set = {
    alertThresholdNanos: change.alertThreshold,
    spendLimitNanos: change.spendLimit,
    bannedAt: change.bannedAt,
    deletedAt: change.deletedAt,
    // Flags are 0/1 integers on both dialects.
    isAdmin: change.isAdmin === undefined ? undefined : change.isAdmin ? 1 : 0,
    // A new threshold starts armed: the next debit that takes the balance below it alerts.
    alertArmed: change.alertThreshold === undefined ? undefined : 1,
  };
  // drizzle leaves out the fields that are undefined, and refuses an UPDATE with none.
  if (Object.values(set).every((value) => value === undefined)) return yield* getAccount(id);
  const [updated] = yield* records(accounts, build.update(accounts).set(set).where(eq(accounts.id, id)).returning());
  return updated ? toAccount(updated) : null;
}

export const userStore = (db: Database): UserStore => ({
  findCredentials: (email) => db.run(findCredentials(email)),
  listAccounts: () => db.run(listAccounts()),
  updateAccount: (id, change) => db.transaction(updateAccount(id, change)),
});
