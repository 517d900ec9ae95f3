import { AppError } from "../errors.ts";
import { formatUsd, ZERO, type Nanos } from "../money.ts";
import type { UsageExportRow } from "./export.ts";
import type { UsageFilter } from "./filter.ts";
import { DAY_MS } from "../time.ts";

// The dashboard's own reads: the usage table, and spend over time for the overview.

/** Rows per page of the usage table. */
export const USAGE_PAGE_SIZE = 50;
/** The table pages through the same latest 1,000 logs as the CSV export, which bounds the query's offset. */
export const USAGE_PAGES = 1_000 / USAGE_PAGE_SIZE;
/** Days in the overview's chart, today (UTC) included. */
const SPEND_CHART_DAYS = 30;


/** A usage log with what the table shows beside it: the key that made the request, and why it failed. */
export interface UsageLogEntry extends UsageExportRow {
  keyPrefix: string | null;
  error: string | null;
}

/** Spend and requests of one UTC day, counted from the epoch (`Math.floor(ms / DAY_MS)`). */
export interface DaySpend {
  day: number;
  spend: Nanos;
  /** What prompt caching saved (the cost at uncached input prices less the charges). */
  saved: Nanos;
  requests: number;
}

export interface DashboardStore {
  /** The account's usage logs (those `filter` lets through), newest first, skipping the `offset` newest. */
  usageLogs(accountId: string, offset: number, limit: number, filter?: UsageFilter): Promise<UsageLogEntry[]>;
  /** How many of the account's usage logs `filter` lets through. */
  countUsageLogs(accountId: string, filter?: UsageFilter): Promise<number>;
  /** Spend and requests per UTC day since `since` (epoch ms, a day's start); days without usage are left out. */
  spendByDay(accountId: string, since: number): Promise<DaySpend[]>;
  /** Spend, savings and requests since `since` (epoch ms). */
  spendSince(accountId: string, since: number): Promise<Omit<DaySpend, "day">>;
}

/** `?page=` of `GET /account/usage`: absent means 1; otherwise a whole number within the pages the table has. */
export function parseUsagePage(raw: string | undefined): number {
  if (raw === undefined) return 1;
  const page = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(page >= 1 && page <= USAGE_PAGES)) {
    throw new AppError("invalid_request_error", `page must be a whole number from 1 to ${USAGE_PAGES}`);
  }
  return page;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** A usage log as the table reads it: the exact charge to the nano-USD, as in the CSV. */
export const usageLogView = (log: UsageLogEntry) => ({
  id: log.id,
  createdAt: iso(log.createdAt),
  model: log.model,
  requestedModel: log.requestedModel,
  keyName: log.keyName,
  keyPrefix: log.keyPrefix,
  // Only in an organization: who spent through the key.
  ...(log.memberEmail === null ? {} : { memberEmail: log.memberEmail }),
  promptTokens: log.promptTokens,
  completionTokens: log.completionTokens,
  cachedTokens: log.cachedTokens,
  costUsd: formatUsd(log.cost, 9),
  savedUsd: formatUsd(log.saved, 9),
  latencyMs: log.latencyMs,
  status: log.status,
  error: log.error,
});

/**
 * `GET /account/usage?page=N` and its filters: one page of the latest usage logs that match,
 * and whether an older page follows.
 */
export async function usagePage(store: DashboardStore, accountId: string, page: number, filter: UsageFilter = {}) {
  // One row past the page tells whether another page exists, without counting them all.
  const [found, matches] = await Promise.all([
    store.usageLogs(accountId, (page - 1) * USAGE_PAGE_SIZE, USAGE_PAGE_SIZE + 1, filter),
    store.countUsageLogs(accountId, filter),
  ]);
  return {
    page,
    pageSize: USAGE_PAGE_SIZE,
    // Every log the filters let through, of which the table pages through (and the CSV holds) the latest 1,000.
    matches,
    hasMore: found.length > USAGE_PAGE_SIZE && page < USAGE_PAGES,
    usage: found.slice(0, USAGE_PAGE_SIZE).map(usageLogView),
  };
}

const spendView = (spend: Pick<DaySpend, "spend" | "saved" | "requests">) => ({
  spendUsd: formatUsd(spend.spend, 9),
  savedUsd: formatUsd(spend.saved, 9),
  requests: spend.requests,
});
const NO_SPEND = { spend: ZERO, saved: ZERO, requests: 0 };

/**
 * `GET /account/spend`: spend in the rolling last 24 hours, and per UTC day over the chart's
 * 30 days, oldest first, with every day present (zero when nothing was spent).
 */
export async function spendSummary(store: DashboardStore, accountId: string, now: number) {
  const today = Math.floor(now / DAY_MS);
  const firstDay = today - SPEND_CHART_DAYS + 1;
  const [recent, days] = await Promise.all([
    store.spendSince(accountId, now - DAY_MS),
    store.spendByDay(accountId, firstDay * DAY_MS),
  ]);
  const byDay = new Map(days.map((d) => [d.day, d]));
  return {
    last24Hours: spendView(recent),
    daily: Array.from({ length: SPEND_CHART_DAYS }, (_, i) => {
      const day = firstDay + i;
      const found = byDay.get(day);
      return { date: iso(day * DAY_MS).slice(0, 10), ...spendView(found ?? NO_SPEND) };
    }),
  };
}
