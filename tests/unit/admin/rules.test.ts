import { describe, expect, test } from "bun:test";
import { parseAccountQuery, parseGrant, parseModelChange, parsePage, requireOperator } from "../../../src/core/admin/rules.ts";
import { adminStats, parseStatsDays, type AdminStatsStore } from "../../../src/core/admin/stats.ts";
import { FALLBACK_CATALOG } from "../../../src/core/catalog.ts";
import { DAY_MS } from "../../../src/core/time.ts";
import { AppError } from "../../../src/core/errors.ts";
import { modelSpend } from "../../../src/core/usage/model-spend.ts";
import { nanos } from "../../../src/core/money.ts";
import type { Account } from "../../../src/core/store.ts";
import { parseUsageFilter } from "../../../src/core/usage/filter.ts";

const refusal = (run: () => unknown): string | null => {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof AppError ? `${error.status} ${error.message}` : String(error);
  }
};

const account = (change: Partial<Account> = {}): Account => ({
  id: "a", email: "op@example.com", createdAt: 0, balance: nanos(0), reserved: nanos(0), inflight: 0, alertThreshold: null,
  spendLimit: null, bannedAt: null, deletedAt: null, emailVerifiedAt: 0, totpEnabledAt: null, signupIp: null, isAdmin: true, kind: "person", ...change,
});

describe("requireOperator", () => {
  test.each([
    [account(), null],
    [account({ isAdmin: false }), "403 Forbidden"],
    [account({ bannedAt: 1 }), "403 Forbidden"],
    [account({ deletedAt: 1 }), "403 Forbidden"],
    [null, "403 Forbidden"],
  ])("%p → %p", (who, expected) => {
    expect(refusal(() => requireOperator({ account: who }))).toBe(expected);
  });
});

describe("parseGrant", () => {
  test.each([
    [{ usd: "25" }, { amount: 25_000_000_000n, kind: "grant", note: "granted by an operator" }],
    [{ usd: 0.1, note: " goodwill " }, { amount: 100_000_000n, kind: "grant", note: "goodwill" }],
    [{ usd: "-0.000000001", note: null }, { amount: -1n, kind: "adjustment", note: "granted by an operator" }],
    [{ usd: "1000000" }, { amount: 1_000_000_000_000_000n, kind: "grant", note: "granted by an operator" }],
  ])("%p is exact", (body, expected) => {
    expect(parseGrant(body)).toEqual(expected as never);
  });

  test.each([
    [[], "400 The body must be a JSON object"],
    [{ usd: "-0" }, "400 usd must not be zero"],
    [{ usd: 1e-10 }, "400 usd must have at most 9 decimal places"],
    [{ usd: "NaN" }, '400 usd must be a USD amount, such as "25" or "2.50"'],
    [{ usd: "-1000000.000000001" }, "400 usd must be at most 1000000 either way"],
  ])("%p is refused", (body, expected) => {
    expect(refusal(() => parseGrant(body))).toBe(expected);
  });
});

// Money strings are decimal digits only: "0x10" is not $16 and "1e3" not $1,000.
const NOT_DECIMAL = ["0x10", "1e3", " 1", "1.", ".5", "+1", "1_000", "Infinity", "NaN"];

describe("money strings", () => {
  test.each(NOT_DECIMAL)("a grant of %p is refused as no USD amount", (usd) => {
    expect(refusal(() => parseGrant({ usd }))).toBe('400 usd must be a USD amount, such as "25" or "2.50"');
  });

  test.each(NOT_DECIMAL)("a price of %p is refused as no USD amount", (price) => {
    expect(refusal(() => parseModelChange({ inputPerMillionUsd: price }))).toBe('400 inputPerMillionUsd must be a USD amount, such as "25" or "2.50"');
  });

  test("10 decimals are refused; a price is never negative, not even -0", () => {
    expect(refusal(() => parseGrant({ usd: "1.0000000001" }))).toBe("400 usd must have at most 9 decimal places");
    expect(refusal(() => parseModelChange({ outputPerMillionUsd: "-0" }))).toBe("400 outputPerMillionUsd must be from 0 to 10000");
    expect(refusal(() => parseModelChange({ outputPerMillionUsd: -1 }))).toBe("400 outputPerMillionUsd must be from 0 to 10000");
  });
});

describe("parseModelChange", () => {
  test("takes any of the three fields, prices to 4 decimal places", () => {
    expect(parseModelChange({ enabled: false, inputPerMillionUsd: "0.0001", outputPerMillionUsd: 10_000 })).toEqual({
      enabled: false, inputPerMTok: nanos(100_000n), outputPerMTok: nanos(10_000_000_000_000n),
    });
    expect(parseModelChange({ inputPerMillionUsd: "0" })).toEqual({ inputPerMTok: nanos(0n) });
  });
});

describe("query parameters", () => {
  test.each([
    [() => parsePage(undefined, 5), 1], [() => parsePage("5", 5), 5], [() => parseAccountQuery("  Ali@EX "), "ali@ex"],
    [() => parseStatsDays(undefined), 30], [() => parseStatsDays("90"), 90],
  ])("%#: accepted", (run, expected) => {
    expect(run()).toEqual(expected as never);
  });

  test.each([
    [() => parsePage("6", 5), "400 page must be a whole number from 1 to 5"],
    [() => parsePage("01e1", 5), "400 page must be a whole number from 1 to 5"],
    [() => parseStatsDays("0"), "400 days must be a whole number from 1 to 90"],
    [() => parseAccountQuery("a\u0000"), "400 q must not contain control characters"],
  ])("%#: refused", (run, expected) => {
    expect(refusal(run)).toBe(expected);
  });

  test("usage filters: dates are whole UTC days, both ends included", () => {
    expect(parseUsageFilter({ from: "2026-03-14", to: "2026-03-14", status: "error", model: "m", key: "k" })).toEqual({
      from: Date.UTC(2026, 2, 14), until: Date.UTC(2026, 2, 15), status: "error", model: "m", keyId: "k",
    });
    expect(parseUsageFilter({ from: "", to: "" })).toEqual({});
    expect(refusal(() => parseUsageFilter({ to: "2026-13-01" }))).toBe("400 to must be a date such as 2026-03-14");
  });
});

describe("adminStats", () => {
  const now = Date.UTC(2026, 2, 14, 12);
  const today = Math.floor(now / DAY_MS);
  const store: AdminStatsStore = {
    creditsByDay: async () => [{ day: today, purchased: nanos(30n), granted: nanos(-1n) }],
    usageByDay: async () => [{ day: today - 1, spend: nanos(9n), requests: 3, errors: 1 }],
    usageByModel: async () => [
      { model: "gpt-5", spend: nanos(4n), requests: 1, errors: 0, latencyMsTotal: 101 },
      { model: "gone-model", spend: nanos(1n), requests: 1, errors: 1, latencyMsTotal: 10 },
      { model: "gpt-4o", spend: nanos(4n), requests: 1, errors: 0, latencyMsTotal: 100 },
    ],
    inflightByModel: async () => [{ model: "gpt-5", requests: 2 }],
  };

  test("fills every day, groups models by their catalog provider, and averages latency exactly", async () => {
    const stats = await adminStats(store, FALLBACK_CATALOG, 2, now);
    expect(stats.daily).toEqual([
      { date: "2026-03-13", soldUsd: "0.000000000", grantedUsd: "0.000000000", spentUsd: "0.000000009", requests: 3, errors: 1 },
      { date: "2026-03-14", soldUsd: "0.000000030", grantedUsd: "-0.000000001", spentUsd: "0.000000000", requests: 0, errors: 0 },
    ]);
    expect(stats.models.map((m) => m.model)).toEqual(["gone-model", "gpt-4o", "gpt-5"]);
    expect(stats.providers).toEqual([
      { provider: "openai", spendUsd: "0.000000008", requests: 2, errors: 0, avgLatencyMs: 101 },
      { provider: "unknown", spendUsd: "0.000000001", requests: 1, errors: 1, avgLatencyMs: 10 },
    ]);
    expect(stats.inflight).toEqual({ requests: 2, models: [{ model: "gpt-5", requests: 2 }] });
  });
});

describe("modelSpend", () => {
  test("a day's series add up to that day's spend, other models included", async () => {
    const now = Date.UTC(2026, 2, 14, 12);
    const day = Math.floor(now / DAY_MS);
    const rows = ["a", "b", "c", "d", "e", "f", "g"].map((model, i) => ({ day, model, spend: nanos(BigInt(100 - i)), requests: 1 }));
    const spend = await modelSpend({ spendByModelDay: async () => rows }, "acct", 1, now);
    expect(spend.models.map((m) => [m.model, m.daily[0]])).toEqual([
      ["a", "0.000000100"], ["b", "0.000000099"], ["c", "0.000000098"], ["d", "0.000000097"], ["e", "0.000000096"], ["other", "0.000000189"],
    ]);
  });
});
