import { and, desc, eq, sql } from "drizzle-orm";
import type { UsageCursor, UsageExportRow, UsageExportStore } from "../../../core/usage/export.ts";
import type { Database } from "../../database.ts";
import { usageLogs } from "../../schema/sqlite.ts";
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

// Keyset pages over (created_at, id): rows written while an export runs cannot shift a page.
function* usageLogPage(accountId: string, after: UsageCursor | null, limit: number): Work<UsageExportRow[]> {
  const mine = eq(usageLogs.accountId, accountId);
  const where = after === null ? mine : and(mine, sql`(${usageLogs.createdAt}, ${usageLogs.id}) < (${after.createdAt}, ${after.id})`);
  const query = build.select().from(usageLogs).where(where).orderBy(desc(usageLogs.createdAt), desc(usageLogs.id)).limit(limit);
  return (yield* records(usageLogs, query)).map(toUsage);
}

export const usageExportStore = (db: Database): UsageExportStore => ({
  usageLogPage: (accountId, after, limit) => db.run(usageLogPage(accountId, after, limit)),
});
