import { csvRecord } from "./csv.ts";
import type { CacheSavings, RequestUsage } from "../entities.ts";
import { formatUsd } from "../money.ts";
import type { UsageFilter } from "./filter.ts";

export interface UsageExportRow extends RequestUsage, CacheSavings {
  id: string;
  createdAt: number;
  status: string;
}

/** Where a page of usage logs ends; the next page starts after it. */
export interface UsageCursor {
  createdAt: number;
  id: string;
}

export interface UsageExportStore {
  /** Up to `limit` of the account's usage logs, newest first, after `after` (from the newest when null). */
  usageLogPage(accountId: string, after: UsageCursor | null, limit: number, filter?: UsageFilter): Promise<UsageExportRow[]>;
}

/** The spec's "latest 1,000 usage logs". */
const USAGE_EXPORT_LIMIT = 1_000;
const PAGE_SIZE = 200;

const USAGE_CSV_COLUMNS = [
  "date", "model", "requested_model", "prompt_tokens", "completion_tokens", "cost_usd", "latency_ms", "status",
] as const;

/** `gateway-usage-YYYY-MM-DD.csv`, dated in UTC. */
export const usageCsvFilename = (now: number): string => `gateway-usage-${new Date(now).toISOString().slice(0, 10)}.csv`;

/** One log as a CSV record: ISO 8601 UTC date, the exact charge to the nano-USD, integer latency. */
export const usageCsvRecord = (log: UsageExportRow): string =>
  csvRecord([
    new Date(log.createdAt).toISOString(),
    log.model,
    log.requestedModel,
    log.promptTokens,
    log.completionTokens,
    formatUsd(log.cost, 9),
    log.latencyMs,
    log.status,
  ]);

/**
 * The account's latest usage logs as CSV, newest first, one chunk per page read, so that
 * neither the rows nor the text are ever held whole. The first page is read before anything
 * is yielded: a failing query surfaces before a response has been started.
 */
export async function* usageCsv(store: UsageExportStore, accountId: string, filter: UsageFilter = {}): AsyncGenerator<string> {
  let wanted = Math.min(PAGE_SIZE, USAGE_EXPORT_LIMIT);
  let page = await store.usageLogPage(accountId, null, wanted, filter);
  let chunk = csvRecord(USAGE_CSV_COLUMNS);
  let sent = 0;
  for (;;) {
    yield chunk + page.map(usageCsvRecord).join("");
    sent += page.length;
    const last = page.at(-1);
    if (page.length < wanted || sent >= USAGE_EXPORT_LIMIT || !last) return;
    wanted = Math.min(PAGE_SIZE, USAGE_EXPORT_LIMIT - sent);
    page = await store.usageLogPage(accountId, { createdAt: last.createdAt, id: last.id }, wanted, filter);
    chunk = "";
  }
}
