import { and, asc, count, desc, eq, gte, sql, sum } from "drizzle-orm";
import { type DashboardStore, type DaySpend, type UsageLogEntry } from "../../../core/usage/history.ts";
import type { ModelDaySpend, ModelSpendStore } from "../../../core/usage/model-spend.ts";
import { nanos } from "../../../core/money.ts";
import type { UsageFilter } from "../../../core/usage/filter.ts";
import type { Database } from "../../database.ts";
import { apiKeys, usageLogs as logs } from "../../schema/sqlite.ts";
import { big, int, type Row, type Work } from "../../sql.ts";
import { build, query, record, utcDay } from "../../typed.ts";
import { filtered, keyOfLog, toUsage, withKey } from "./export.ts";

const toEntry = (r: Row): UsageLogEntry => {
  const log = record(logs, r);
  return { ...toUsage(log, r), keyPrefix: typeof r.key_prefix === "string" ? r.key_prefix : null, error: log.error };
};

function* usageLogs(accountId: string, offset: number, limit: number, filter: UsageFilter): Work<UsageLogEntry[]> {
  const found = yield* query(build.select({ log: logs, ...withKey })
    .from(logs).leftJoin(apiKeys, keyOfLog)
    .where(filtered(accountId, filter)).orderBy(desc(logs.createdAt), desc(logs.id)).limit(limit).offset(offset));
  return found.map(toEntry);
}

function* countUsageLogs(accountId: string, filter: UsageFilter): Work<number> {
  const [row] = yield* query(build.select({ matches: count().as("matches") }).from(logs).where(filtered(accountId, filter)));
  return int(row?.matches);
}

const since = (accountId: string, from: number) => and(eq(logs.accountId, accountId), gte(logs.createdAt, from));
const totals = { spend: sum(logs.costNanos).as("spend"), saved: sum(logs.savedNanos).as("saved"), requests: count().as("requests") };

function* spendByDay(accountId: string, from: number): Work<DaySpend[]> {
  const found = yield* query(build.select({ day: utcDay(logs.createdAt).as("day"), ...totals }).from(logs)
    .where(since(accountId, from)).groupBy(sql`day`).orderBy(sql`day`));
  return found.map((r) => ({ day: int(r.day), spend: nanos(big(r.spend)), saved: nanos(big(r.saved)), requests: int(r.requests) }));
}

function* spendByModelDay(accountId: string, from: number): Work<ModelDaySpend[]> {
  const found = yield* query(build.select({ day: utcDay(logs.createdAt).as("day"), model: logs.model, ...totals }).from(logs)
    .where(since(accountId, from)).groupBy(sql`day`, logs.model).orderBy(sql`day`, asc(logs.model)));
  return found.map((r) => ({ day: int(r.day), model: String(r.model), spend: nanos(big(r.spend)), requests: int(r.requests) }));
}

function* spendSince(accountId: string, from: number): Work<Omit<DaySpend, "day">> {
  const [row] = yield* query(build.select(totals).from(logs).where(since(accountId, from)));
  return { spend: nanos(big(row?.spend)), saved: nanos(big(row?.saved)), requests: int(row?.requests) };
}

export const dashboardStore = (db: Database): DashboardStore & ModelSpendStore => ({
  usageLogs: (accountId, offset, limit, filter = {}) => db.run(usageLogs(accountId, offset, limit, filter)),
  countUsageLogs: (accountId, filter = {}) => db.run(countUsageLogs(accountId, filter)),
  spendByModelDay: (accountId, from) => db.run(spendByModelDay(accountId, from)),
  spendByDay: (accountId, from) => db.run(spendByDay(accountId, from)),
  spendSince: (accountId, from) => db.run(spendSince(accountId, from)),
});
