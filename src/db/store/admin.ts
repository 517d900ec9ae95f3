import { and, count, desc, eq, gte, inArray, ne, sql, sum, type AnyColumn, type SQL } from "drizzle-orm";
import type { AdminAccountStore } from "../../core/admin/actions.ts";
import type { NewAuditEvent } from "../../core/accounts/audit.ts";
import type { AdminStatsStore, DayCredits, DayUsage, ModelUsage } from "../../core/admin/stats.ts";
import { nanos, type Nanos } from "../../core/money.ts";
import type { Account, Credit } from "../../core/store.ts";
import type { Database } from "../database.ts";
import { accounts, ledgerEntries, reservations, usageLogs } from "../schema/sqlite.ts";
import { big, first, int, type Work } from "../sql.ts";
import type { Dialect } from "../migration-files.ts";
import { build, query, records, utcDay } from "../typed.ts";
import { appendLedger } from "./accounts/records.ts";
import { usageSince } from "./billing/usage-log.ts";
import { recordAudit } from "./accounts/audit.ts";
import { updateModel } from "./models.ts";
import { toAccount } from "./rows.ts";
import { updateAccount } from "./accounts/users.ts";

/** Runs `work` and, when it found what it changes (not null), records its audit event in the same transaction. */
function* audited<T>(work: Work<T | null>, audit: (result: T) => NewAuditEvent): Work<T | null> {
  const result = yield* work;
  if (result !== null) yield* recordAudit(audit(result));
  return result;
}

/**
 * `appendLedger` and its audit event, refusing (writing nothing) a debit that would take the
 * balance below zero. The account's row is locked before it is read (Postgres; SQLite's
 * transactions are BEGIN IMMEDIATE), so the balance checked is the one the entry moves.
 */
function* creditKeepingNonNegative(dialect: Dialect, credit: Credit, audit: NewAuditEvent): Work<{ balance: Nanos; refused?: "below_zero" } | null> {
  if (credit.amount < 0n) {
    const row = yield* first(`SELECT balance_nanos FROM accounts WHERE id = ?${dialect === "postgres" ? " FOR UPDATE" : ""}`, credit.accountId);
    if (!row) return null;
    const balance = nanos(big(row.balance_nanos));
    if (balance + credit.amount < 0n) return { balance, refused: "below_zero" };
  }
  return yield* audited(appendLedger(credit), () => audit);
}

// The operator console's reads, over every account, by UTC day where they are by day.

function* searchAccounts(text: string, offset: number, limit: number): Work<Account[]> {
  // E-mails are stored lower-case; LIKE's wildcards in the query are matched literally.
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  // People only: organizations have their own list (their e-mail is a placeholder).
  const found = yield* records(accounts, build.select().from(accounts).where(sql`${accounts.email} LIKE ${pattern} ESCAPE '\\' AND ${accounts.kind} = 'person'`)
    .orderBy(desc(accounts.createdAt), desc(accounts.id)).limit(limit).offset(offset));
  return found.map(toAccount);
}

function* emailsOf(accountIds: string[]): Work<Map<string, string>> {
  if (accountIds.length === 0) return new Map();
  const found = yield* records(accounts, build.select().from(accounts).where(inArray(accounts.id, accountIds)));
  return new Map(found.map((account) => [account.id, account.email]));
}

/** The sum of `amount` over the rows where `when` holds. */
const sumWhere = (when: SQL, amount: AnyColumn | SQL) => sql`SUM(CASE WHEN ${when} THEN ${amount} ELSE 0 END)`;

function* creditsByDay(since: number): Work<DayCredits[]> {
  // Purchases are credit sold; grants and adjustments are the operators' (and the sign-up bonus).
  const found = yield* query(build.select({
    day: utcDay(ledgerEntries.createdAt).as("day"),
    purchased: sumWhere(eq(ledgerEntries.kind, "purchase"), ledgerEntries.amountNanos).as("purchased"),
    granted: sumWhere(inArray(ledgerEntries.kind, ["grant", "adjustment"]), ledgerEntries.amountNanos).as("granted"),
  }).from(ledgerEntries).where(and(gte(ledgerEntries.createdAt, since), ne(ledgerEntries.kind, "charge"))).groupBy(sql`day`).orderBy(sql`day`));
  return found.map((r) => ({ day: int(r.day), purchased: nanos(big(r.purchased)), granted: nanos(big(r.granted)) }));
}

const usageTotals = {
  spend: sum(usageLogs.costNanos).as("spend"),
  requests: count().as("requests"),
  errors: sumWhere(eq(usageLogs.status, "error"), sql`1`).as("errors"),
};

function* usageByDay(since: number): Work<DayUsage[]> {
  const found = yield* query(build.select({ day: utcDay(usageLogs.createdAt).as("day"), ...usageTotals }).from(usageLogs)
    .where(usageSince(since)).groupBy(sql`day`).orderBy(sql`day`));
  return found.map((r) => ({ day: int(r.day), spend: nanos(big(r.spend)), requests: int(r.requests), errors: int(r.errors) }));
}

function* usageByModel(since: number): Work<ModelUsage[]> {
  const found = yield* query(build.select({ model: usageLogs.model, ...usageTotals, latency: sum(usageLogs.latencyMs).as("latency") })
    .from(usageLogs).where(usageSince(since)).groupBy(usageLogs.model));
  return found.map((r) => ({
    model: String(r.model), spend: nanos(big(r.spend)), requests: int(r.requests), errors: int(r.errors), latencyMsTotal: int(r.latency),
  }));
}

function* inflightByModel(): Work<{ model: string; requests: number }[]> {
  const found = yield* query(build.select({ model: reservations.model, requests: count().as("requests") }).from(reservations).groupBy(reservations.model));
  return found.map((r) => ({ model: String(r.model), requests: int(r.requests) }));
}

export const adminStore = (db: Database): AdminAccountStore & AdminStatsStore => ({
  searchAccounts: (text, offset, limit) => db.run(searchAccounts(text, offset, limit)),
  emailsOf: (accountIds) => db.run(emailsOf(accountIds)),
  addCreditAudited: (credit, audit, options) => db.transaction(
    options?.keepNonNegative ? creditKeepingNonNegative(db.dialect, credit, audit) : audited(appendLedger(credit), () => audit),
  ),
  updateAccountAudited: (id, change, audit) => db.transaction(audited(updateAccount(id, change), () => audit)),
  updateModelAudited: (id, change, audit) => db.transaction(audited(updateModel(id, change), audit)),
  creditsByDay: (since) => db.run(creditsByDay(since)),
  usageByDay: (since) => db.run(usageByDay(since)),
  usageByModel: (since) => db.run(usageByModel(since)),
  inflightByModel: () => db.run(inflightByModel()),
});
