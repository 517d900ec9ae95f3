import { type DashboardStore, type DaySpend, type UsageLogEntry } from "../../core/dashboard.ts";
import { DAY_MS } from "../../core/time.ts";
import type { ModelDaySpend, ModelSpendStore } from "../../core/model-spend.ts";
import { nanos, type Nanos } from "../../core/money.ts";
import type { UsageFilter } from "../../core/usage-filter.ts";
import type { Database } from "../database.ts";
import { big, first, int, rows, type Row, type Work } from "../sql.ts";
import { toUsage } from "./usage-export.ts";

const toEntry = (r: Row): UsageLogEntry => ({
  ...toUsage(r),
  keyName: (r.key_name as string | null) ?? null,
  keyPrefix: (r.key_prefix as string | null) ?? null,
  error: (r.error as string | null) ?? null,
});

// The filter's conditions; column names are fixed here, values always go as parameters.
function filterConditions(filter: UsageFilter): { sql: string; params: unknown[] } {
  const conditions: [string, unknown][] = [];
  if (filter.keyId !== undefined) conditions.push(["u.key_id = ?", filter.keyId]);
  if (filter.model !== undefined) conditions.push(["u.model = ?", filter.model]);
  if (filter.status !== undefined) conditions.push(["u.status = ?", filter.status]);
  if (filter.from !== undefined) conditions.push(["u.created_at >= ?", filter.from]);
  if (filter.until !== undefined) conditions.push(["u.created_at < ?", filter.until]);
  return { sql: conditions.map(([c]) => ` AND ${c}`).join(""), params: conditions.map(([, p]) => p) };
}

function* usageLogs(accountId: string, offset: number, limit: number, filter: UsageFilter): Work<UsageLogEntry[]> {
  const where = filterConditions(filter);
  // The key's account is matched too, so that a log can never show another account's key.
  const found = yield* rows(
    `SELECT u.id, u.created_at, u.model, u.requested_model, u.prompt_tokens, u.completion_tokens, u.cost_nanos,
       u.latency_ms, u.status, u.error, k.name AS key_name, k.prefix AS key_prefix
     FROM usage_logs u LEFT JOIN api_keys k ON k.id = u.key_id AND k.account_id = u.account_id
     WHERE u.account_id = ?${where.sql} ORDER BY u.created_at DESC, u.id DESC LIMIT ? OFFSET ?`,
    accountId, ...where.params, limit, offset,
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

function* spendByModelDay(accountId: string, since: number): Work<ModelDaySpend[]> {
  const found = yield* rows(
    `SELECT created_at / ${DAY_MS} AS day, model, SUM(cost_nanos) AS spend, COUNT(*) AS requests
     FROM usage_logs WHERE account_id = ? AND created_at >= ? GROUP BY day, model ORDER BY day, model`,
    accountId, since,
  );
  return found.map((r) => ({ day: int(r.day), model: r.model as string, spend: nanos(big(r.spend)), requests: int(r.requests) }));
}

function* spendSince(accountId: string, since: number): Work<{ spend: Nanos; requests: number }> {
  const row = yield* first(
    "SELECT SUM(cost_nanos) AS spend, COUNT(*) AS requests FROM usage_logs WHERE account_id = ? AND created_at >= ?",
    accountId, since,
  );
  return { spend: nanos(big(row?.spend)), requests: int(row?.requests) };
}

export const dashboardStore = (db: Database): DashboardStore & ModelSpendStore => ({
  usageLogs: (accountId, offset, limit, filter = {}) => db.run(usageLogs(accountId, offset, limit, filter)),
  spendByModelDay: (accountId, since) => db.run(spendByModelDay(accountId, since)),
  spendByDay: (accountId, since) => db.run(spendByDay(accountId, since)),
  spendSince: (accountId, since) => db.run(spendSince(accountId, since)),
});
