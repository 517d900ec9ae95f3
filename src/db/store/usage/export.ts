import { and, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { UsageCursor, UsageExportRow, UsageExportStore } from "../../../core/usage/export.ts";
import type { UsageFilter } from "../../../core/usage/filter.ts";
import type { Database } from "../../database.ts";
import { apiKeys, usageLogs } from "../../schema/sqlite.ts";
import type { Work } from "../../sql.ts";
import { build, records } from "../../typed.ts";

/** A usage log's record as core reads it. */
export const toUsage = (r: typeof usageLogs.$inferSelect): UsageExportRow => ({
  id: r.id,
  createdAt: r.createdAt,
  model: r.model,
  requestedModel: r.requestedModel,
  promptTokens: r.promptTokens,
  completionTokens: r.completionTokens,
  cost: r.costNanos,
  latencyMs: r.latencyMs,
  status: r.status,
  cachedTokens: r.cachedTokens,
  saved: r.savedNanos,
});

/** The account's logs, narrowed by the filter's fields that are set (the usage table's and the export's). */
export const filtered = (accountId: string, filter: UsageFilter) =>
  and(
    eq(usageLogs.accountId, accountId),
    filter.keyId === undefined ? undefined : eq(usageLogs.keyId, filter.keyId),
    filter.memberId === undefined ? undefined : inArray(usageLogs.keyId, build.select({ id: apiKeys.id }).from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.ownerId, filter.memberId)))),
    filter.model === undefined ? undefined : eq(usageLogs.model, filter.model),
    filter.status === undefined ? undefined : eq(usageLogs.status, filter.status),
    filter.from === undefined ? undefined : gte(usageLogs.createdAt, filter.from),
    filter.until === undefined ? undefined : lt(usageLogs.createdAt, filter.until),
  );

// Keyset pages over (created_at, id): rows written while an export runs cannot shift a page.
function* usageLogPage(accountId: string, after: UsageCursor | null, limit: number, filter: UsageFilter): Work<UsageExportRow[]> {
  const mine = filtered(accountId, filter);
  const where = after === null ? mine : and(mine, sql`(${usageLogs.createdAt}, ${usageLogs.id}) < (${after.createdAt}, ${after.id})`);
  const query = build.select().from(usageLogs).where(where).orderBy(desc(usageLogs.createdAt), desc(usageLogs.id)).limit(limit);
  return (yield* records(usageLogs, query)).map(toUsage);
}

export const usageExportStore = (db: Database): UsageExportStore => ({
  usageLogPage: (accountId, after, limit, filter = {}) => db.run(usageLogPage(accountId, after, limit, filter)),
});
