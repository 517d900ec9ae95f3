import { csvRecord, csvText } from "./csv.ts";
import type { CacheSavings, RequestUsage } from "../entities.ts";
import { formatUsd } from "../money.ts";
import type { UsageFilter } from "./filter.ts";

export interface UsageExportRow extends RequestUsage, CacheSavings {
  id: string;
  createdAt: number;
  status: string;
  /** Null when the request had no key (or the key row is gone). */
  keyName: string | null;
  /** In an organization, the member who owns the key; null for personal and organization keys. */
  memberEmail: string | null;
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

/**
 * An organization's export names who made each request (DESIGN: usage rows name the member and
 * the key), after the spec's columns, whose order stays as it is: the member's e-mail (empty for
 * an organization key) and the key's name. A personal account's export has the spec's columns only.
 */
const ORGANIZATION_CSV_COLUMNS = [...USAGE_CSV_COLUMNS, "member", "key"] as const;

/** Whose usage an export holds: a person's own, or an organization's (its members'). */
export type UsageExportKind = "personal" | "organization";

/** `gateway-usage-YYYY-MM-DD.csv`, dated in UTC. */
export const usageCsvFilename = (now: number): string => `gateway-usage-${new Date(now).toISOString().slice(0, 10)}.csv`;

const usageCsvFields = (log: UsageExportRow) => [
  new Date(log.createdAt).toISOString(),
  log.model,
  log.requestedModel,
  log.promptTokens,
  log.completionTokens,
  formatUsd(log.cost, 9),
  log.latencyMs,
  usageCsvStatus(log.status),
];

/** The CSV's `status`: `success` or `error`, a request the key's allowlists refused being an error. */
export const usageCsvStatus = (status: string): "success" | "error" => (status === "success" ? "success" : "error");

/** One log as a CSV record: ISO 8601 UTC date, the exact charge to the nano-USD, integer latency. */
export const usageCsvRecord = (log: UsageExportRow, kind: UsageExportKind = "personal"): string =>
  csvRecord(kind === "personal" ? usageCsvFields(log) : [...usageCsvFields(log), csvText(log.memberEmail ?? ""), csvText(log.keyName ?? "")]);

/**
 * The account's usage logs that `filter` lets through, newest first, one page at a time, at most
 * `limit` of them (the HTTP export's 1,000 by default; the CLI's export has no cap). The first
 * page is read before anything is yielded: a failing query surfaces before a response has started.
 */
export async function* usagePages(
  store: UsageExportStore, accountId: string, filter: UsageFilter = {}, limit = USAGE_EXPORT_LIMIT,
): AsyncGenerator<UsageExportRow[]> {
  let wanted = Math.min(PAGE_SIZE, limit);
  let page = await store.usageLogPage(accountId, null, wanted, filter);
  let sent = 0;
  for (;;) {
    yield page;
    sent += page.length;
    const last = page.at(-1);
    if (page.length < wanted || sent >= limit || !last) return;
    wanted = Math.min(PAGE_SIZE, limit - sent);
    page = await store.usageLogPage(accountId, { createdAt: last.createdAt, id: last.id }, wanted, filter);
  }
}

/** What an export holds: the logs `filter` lets through, at most `limit` (the HTTP export's 1,000), of a person or an organization. */
export interface UsageExportOptions {
  filter?: UsageFilter;
  limit?: number;
  kind?: UsageExportKind;
}

/**
 * The account's latest usage logs as CSV, newest first, one chunk per page read, so that
 * neither the rows nor the text are ever held whole (the header comes with the first page).
 */
export async function* usageCsv(store: UsageExportStore, accountId: string, options: UsageExportOptions = {}): AsyncGenerator<string> {
  const { filter = {}, limit = USAGE_EXPORT_LIMIT, kind = "personal" } = options;
  let header = csvRecord(kind === "personal" ? USAGE_CSV_COLUMNS : ORGANIZATION_CSV_COLUMNS);
  for await (const page of usagePages(store, accountId, filter, limit)) {
    yield header + page.map((log) => usageCsvRecord(log, kind)).join("");
    header = "";
  }
}

/** A usage log under the names `GET /account/usage` gives it, money exact to the nano-USD. */
export const usageJsonRecord = (log: UsageExportRow) => ({
  id: log.id,
  createdAt: new Date(log.createdAt).toISOString(),
  model: log.model,
  requestedModel: log.requestedModel,
  promptTokens: log.promptTokens,
  completionTokens: log.completionTokens,
  cachedTokens: log.cachedTokens,
  costUsd: formatUsd(log.cost, 9),
  savedUsd: formatUsd(log.saved, 9),
  latencyMs: log.latencyMs,
  status: log.status,
});

/** The same logs as one JSON array, one record per line, streamed a page at a time. */
export async function* usageJson(store: UsageExportStore, accountId: string, options: Omit<UsageExportOptions, "kind"> = {}): AsyncGenerator<string> {
  const { filter = {}, limit = USAGE_EXPORT_LIMIT } = options;
  let opening = "[";
  for await (const page of usagePages(store, accountId, filter, limit)) {
    if (page.length === 0) continue;
    yield opening + page.map((log) => `\n${JSON.stringify(usageJsonRecord(log))}`).join(",");
    opening = ",";
  }
  yield opening === "[" ? "[]\n" : "\n]\n";
}
