import { DAY_MS, type DashboardStore, type DaySpend, type UsageLogEntry } from "../../core/dashboard.ts";
import { nanos, type Nanos } from "../../core/money.ts";
import type { Database } from "../database.ts";
import { big, first, int, rows, type Row, type Work } from "../sql.ts";
import { toUsage } from "./usage-export.ts";

const toEntry = (r: Row): UsageLogEntry => ({
  ...toUsage(r),
  keyName: (r.key_name as string | null) ?? null,
  keyPrefix: (r.key_prefix as string | null) ?? null,
  error: (r.error as string | null) ?? null,
});

function* usageLogs(accountId: string, offset: number, limit: number): Work<UsageLogEntry[]> {
  // The key's account is matched too, so that a log can never show another account's key.
  const found = yield* rows(
    `SELECT u.id, u.created_at, u.model, u.requested_model, u.prompt_tokens, u.completion_tokens, u.cost_nanos,
       u.latency_ms, u.status, u.error, k.name AS key_name, k.prefix AS key_prefix
     FROM usage_logs u LEFT JOIN api_keys k ON k.id = u.key_id AND k.account_id = u.account_id
     WHERE u.account_id = ? ORDER BY u.created_at DESC, u.id DESC LIMIT ? OFFSET ?`,
    accountId, limit, offset,
  );
  return found.map(toEntry);
}

// Times are integer epoch milliseconds on both dialects, so integer division gives the UTC day.
function* spendByDay(accountId: string, since: number): Work<DaySpend[]> {
  const found = yield* rows(
    `SELECT created_at / ${DAY_MS} AS day, SUM(cost_nanos) AS spend, COUNT(*) AS requests
     FROM usage_logs WHERE account_id = ? AND created_at >= ? GROUP BY day ORDER BY day`,
    accountId, since,
  );
  return found.map((r) => ({ day: int(r.day), spend: nanos(big(r.spend)), requests: int(r.requests) }));
}

function* spendSince(accountId: string, since: number): Work<{ spend: Nanos; requests: number }> {
  const row = yield* first(
    "SELECT SUM(cost_nanos) AS spend, COUNT(*) AS requests FROM usage_logs WHERE account_id = ? AND created_at >= ?",
    accountId, since,
  );
  return { spend: nanos(big(row?.spend)), requests: int(row?.requests) };
}

export const dashboardStore = (db: Database): DashboardStore => ({
  usageLogs: (accountId, offset, limit) => db.run(usageLogs(accountId, offset, limit)),
  spendByDay: (accountId, since) => db.run(spendByDay(accountId, since)),
  spendSince: (accountId, since) => db.run(spendSince(accountId, since)),
});
