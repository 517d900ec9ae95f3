import type { AdminAccountStore } from "../../core/admin-actions.ts";
import type { NewAuditEvent } from "../../core/audit.ts";
import type { AdminStatsStore, DayCredits, DayUsage, ModelUsage } from "../../core/admin-stats.ts";
import { DAY_MS } from "../../core/time.ts";
import { nanos } from "../../core/money.ts";
import type { Account } from "../../core/store.ts";
import type { Database } from "../database.ts";
import { big, int, rows, type Work } from "../sql.ts";
import { appendLedger } from "./accounts.ts";
import { recordAudit } from "./audit.ts";
import { updateModel } from "./models.ts";
import { ACCOUNT_COLUMNS, accountFromRow } from "./rows.ts";
import { updateAccount } from "./users.ts";

/** Runs `work` and, when it found what it changes (not null), records its audit event in the same transaction. */
function* audited<T>(work: Work<T | null>, audit: (result: T) => NewAuditEvent): Work<T | null> {
  const result = yield* work;
  if (result !== null) yield* recordAudit(audit(result));
  return result;
}

// The operator console's reads, over every account. Times are integer epoch milliseconds on
// both dialects, so integer division gives the UTC day.

function* searchAccounts(query: string, offset: number, limit: number): Work<Account[]> {
  // E-mails are stored lower-case; LIKE's wildcards in the query are matched literally.
  const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const found = yield* rows(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email LIKE ? ESCAPE '\\'
     ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
    pattern, limit, offset,
  );
  return found.map(accountFromRow);
}

function* emailsOf(accountIds: string[]): Work<Map<string, string>> {
  if (accountIds.length === 0) return new Map();
  const found = yield* rows(`SELECT id, email FROM accounts WHERE id IN (${accountIds.map(() => "?").join(", ")})`, ...accountIds);
  return new Map(found.map((r) => [r.id as string, r.email as string]));
}

function* creditsByDay(since: number): Work<DayCredits[]> {
  // Purchases are credit sold; grants and adjustments are the operators' (and the sign-up bonus).
  const found = yield* rows(
    `SELECT created_at / ${DAY_MS} AS day,
       SUM(CASE WHEN kind = 'purchase' THEN amount_nanos ELSE 0 END) AS purchased,
       SUM(CASE WHEN kind IN ('grant', 'adjustment') THEN amount_nanos ELSE 0 END) AS granted
     FROM ledger_entries WHERE created_at >= ? AND kind <> 'charge' GROUP BY day ORDER BY day`,
    since,
  );
  return found.map((r) => ({ day: int(r.day), purchased: nanos(big(r.purchased)), granted: nanos(big(r.granted)) }));
}

function* usageByDay(since: number): Work<DayUsage[]> {
  const found = yield* rows(
    `SELECT created_at / ${DAY_MS} AS day, SUM(cost_nanos) AS spend, COUNT(*) AS requests,
       SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END) AS errors
     FROM usage_logs WHERE created_at >= ? GROUP BY day ORDER BY day`,
    since,
  );
  return found.map((r) => ({ day: int(r.day), spend: nanos(big(r.spend)), requests: int(r.requests), errors: int(r.errors) }));
}

function* usageByModel(since: number): Work<ModelUsage[]> {
  const found = yield* rows(
    `SELECT model, SUM(cost_nanos) AS spend, COUNT(*) AS requests,
       SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END) AS errors, SUM(latency_ms) AS latency
     FROM usage_logs WHERE created_at >= ? GROUP BY model`,
    since,
  );
  return found.map((r) => ({
    model: r.model as string, spend: nanos(big(r.spend)), requests: int(r.requests), errors: int(r.errors), latencyMsTotal: int(r.latency),
  }));
}

function* inflightByModel(): Work<{ model: string; requests: number }[]> {
  const found = yield* rows("SELECT model, COUNT(*) AS requests FROM reservations GROUP BY model");
  return found.map((r) => ({ model: r.model as string, requests: int(r.requests) }));
}

export const adminStore = (db: Database): AdminAccountStore & AdminStatsStore => ({
  searchAccounts: (query, offset, limit) => db.run(searchAccounts(query, offset, limit)),
  emailsOf: (accountIds) => db.run(emailsOf(accountIds)),
  addCreditAudited: (credit, audit) => db.transaction(audited(appendLedger(credit), () => audit)),
  updateAccountAudited: (id, change, audit) => db.transaction(audited(updateAccount(id, change), () => audit)),
  updateModelAudited: (id, change, audit) => db.transaction(audited(updateModel(id, change), audit)),
  creditsByDay: (since) => db.run(creditsByDay(since)),
  usageByDay: (since) => db.run(usageByDay(since)),
  usageByModel: (since) => db.run(usageByModel(since)),
  inflightByModel: () => db.run(inflightByModel()),
});
