import { and, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { UsageCursor, UsageExportRow, UsageExportStore } from "../../../core/usage/export.ts";
import type { UsageFilter } from "../../../core/usage/filter.ts";
import type { Database } from "../../database.ts";
import { apiKeys, usageLogs } from "../../schema/sqlite.ts";
import type { Row, Work } from "../../sql.ts";
import { build, query, record } from "../../typed.ts";

const text = (value: unknown) => (typeof value === "string" ? value : null);

/** What a usage log is read with: the name of the key that made it and, in an organization, its owner's e-mail. */
export const withKey = {
  keyName: sql`${apiKeys.name}`.as("key_name"),
  keyPrefix: sql`${apiKeys.prefix}`.as("key_prefix"),
  memberEmail: sql`(SELECT email FROM accounts WHERE id = ${apiKeys.ownerId})`.as("member_email"),
};

// The key's account is matched too, so that a log can never show another account's key.
export const keyOfLog = and(eq(apiKeys.id, usageLogs.keyId), eq(apiKeys.accountId, usageLogs.accountId));

/** A usage log's record as core reads it, from a row selected with `withKey`. */
export const toUsage = (r: typeof usageLogs.$inferSelect, row: Row): UsageExportRow => ({
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
  keyName: text(row.key_name),
  memberEmail: text(row.member_email),
});

/** The account's logs, narrowed by the filter's fields that are set (the usage table's and the export's). */
export const filtered = (accountId: string, filter: UsageFilter) =>
  and(
    eq(usageLogs.accountId, accountId),
    filter.keyId === undefined ? undefined : eq(usageLogs.keyId, filter.keyId),
    filter.memberId === undefined ? undefined : inArray(usageLogs.keyId, build.select({ id: apiKeys.id }).from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.ownerId, filter.memberId)))),
    filter.model === undefined ? undefined : eq(usageLogs.model, filter.model),
    // `error` is every request that failed, refusals included: the CSV calls both `error`.
    filter.status === undefined ? undefined
      : filter.status === "error" ? inArray(usageLogs.status, ["error", "refused"]) : eq(usageLogs.status, filter.status),
    filter.from === undefined ? undefined : gte(usageLogs.createdAt, filter.from),
    filter.until === undefined ? undefined : lt(usageLogs.createdAt, filter.until),
  );

// Keyset pages over (created_at, id): rows written while an export runs cannot shift a page.
function* usageLogPage(accountId: string, after: UsageCursor | null, limit: number, filter: UsageFilter): Work<UsageExportRow[]> {
  const mine = filtered(accountId, filter);
  const where = after === null ? mine : and(mine, sql`(${usageLogs.createdAt}, ${usageLogs.id}) < (${after.createdAt}, ${after.id})`);
  const found = yield* query(build.select({ log: usageLogs, ...withKey }).from(usageLogs).leftJoin(apiKeys, keyOfLog)
    .where(where).orderBy(desc(usageLogs.createdAt), desc(usageLogs.id)).limit(limit));
  return found.map((row) => toUsage(record(usageLogs, row), row));
}

export const usageExportStore = (db: Database): UsageExportStore => ({
  usageLogPage: (accountId, after, limit, filter = {}) => db.run(usageLogPage(accountId, after, limit, filter)),
});
