import { describe, expect, test } from "bun:test";
import { parseUsagePage, spendSummary, usagePage, USAGE_PAGE_SIZE, USAGE_PAGES, type DashboardStore, type UsageLogEntry } from "../../../src/core/usage/history.ts";
import { DAY_MS } from "../../../src/core/time.ts";
import { isAppError } from "../../../src/core/errors.ts";
import { nanos } from "../../../src/core/money.ts";

const entry = (i: number): UsageLogEntry => ({
  id: `log-${i}`, createdAt: i, model: "gpt-5.4-mini", requestedModel: "gpt-5.4-mini", promptTokens: 1, completionTokens: 2,
  cost: nanos(3), latencyMs: 4, status: "success", keyName: "k", keyPrefix: "gw-abcdefg", memberEmail: null, error: null, cachedTokens: 0, saved: nanos(0),
});

/** A store holding `total` logs, recording what it is asked for. */
function fakeStore(total: number, days: { day: number; spend: bigint; saved?: bigint; requests: number }[] = []) {
  const asked: { offset: number; limit: number }[] = [];
  const sinces: number[] = [];
  const store: DashboardStore = {
    usageLogs: async (_accountId, offset, limit) => {
      asked.push({ offset, limit });
      return Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => entry(offset + i));
    },
    countUsageLogs: async () => total,
    spendByDay: async (_accountId, since) => {
      sinces.push(since);
      return days.map((d) => ({ ...d, spend: nanos(d.spend), saved: nanos(d.saved ?? 0n) }));
    },
    spendSince: async (_accountId, since) => {
      sinces.push(since);
      return { spend: nanos(42), saved: nanos(7), requests: 1 };
    },
  };
  return { store, asked, sinces };
}

describe("parseUsagePage", () => {
  test.each([[undefined, 1], ["1", 1], ["7", 7], [String(USAGE_PAGES), USAGE_PAGES]])("reads %p as page %p", (raw, page) => {
    expect(parseUsagePage(raw)).toBe(page);
  });

  test.each(["0", String(USAGE_PAGES + 1), "-3", "2.0", "1e1", " 2", "x", ""])("refuses %p with a 400 naming the range", (raw) => {
    let caught: unknown;
    try {
      parseUsagePage(raw);
    } catch (error) {
      caught = error;
    }
    expect(isAppError(caught) && [caught.status, caught.message]).toEqual([400, "page must be a whole number from 1 to 20"]);
  });
});

describe("usagePage", () => {
  test("asks for one row past the page to tell whether another follows", async () => {
    const { store, asked } = fakeStore(USAGE_PAGE_SIZE + 1);
    const page = await usagePage(store, "acct", 1);
    expect(asked).toEqual([{ offset: 0, limit: USAGE_PAGE_SIZE + 1 }]);
    expect(page.hasMore).toBe(true);
    expect(page.usage).toHaveLength(USAGE_PAGE_SIZE);
  });

  test("the last page the table has never offers another, even when older logs exist", async () => {
    const { store, asked } = fakeStore(5_000);
    const page = await usagePage(store, "acct", USAGE_PAGES);
    expect(asked).toEqual([{ offset: (USAGE_PAGES - 1) * USAGE_PAGE_SIZE, limit: USAGE_PAGE_SIZE + 1 }]);
    expect(page.hasMore).toBe(false);
  });

  test("shows a log with its time in ISO 8601 and its cost to the nano-USD", async () => {
    const { usage } = await usagePage(fakeStore(1).store, "acct", 1);
    expect(usage).toEqual([{
      id: "log-0", createdAt: "1970-01-01T00:00:00.000Z", model: "gpt-5.4-mini", requestedModel: "gpt-5.4-mini", keyName: "k",
      keyPrefix: "gw-abcdefg", promptTokens: 1, completionTokens: 2, cachedTokens: 0, costUsd: "0.000000003", savedUsd: "0.000000000", latencyMs: 4,
      status: "success", error: null,
    }]);
  });
});

describe("spendSummary", () => {
  const now = Date.UTC(2026, 10, 21, 15, 30);
  const today = Math.floor(now / DAY_MS);

  test("reads the last 24 hours from now, and days from the start of the chart's first UTC day", async () => {
    const { store, sinces } = fakeStore(0);
    await spendSummary(store, "acct", now);
    expect(sinces.sort()).toEqual([(today - 29) * DAY_MS, now - DAY_MS].sort());
  });

  test("fills the 30 days oldest first, zero where the store has none", async () => {
    const { store } = fakeStore(0, [{ day: today, spend: 1_000_000_000n, saved: 250_000_000n, requests: 4 }, { day: today - 29, spend: 1n, requests: 1 }]);
    const { last24Hours, daily } = await spendSummary(store, "acct", now);
    expect(last24Hours).toEqual({ spendUsd: "0.000000042", savedUsd: "0.000000007", requests: 1 });
    expect(daily).toHaveLength(30);
    expect(daily[0]).toEqual({ date: "2026-10-23", spendUsd: "0.000000001", savedUsd: "0.000000000", requests: 1 });
    expect(daily[1]).toEqual({ date: "2026-10-24", spendUsd: "0.000000000", savedUsd: "0.000000000", requests: 0 });
    expect(daily[29]).toEqual({ date: "2026-11-21", spendUsd: "1.000000000", savedUsd: "0.250000000", requests: 4 });
  });
});
