import { describe, expect, test } from "bun:test";
import { keyCreatedView, keyListView, parseKeyChange, parseNewKey } from "../../../src/core/keys/rules.ts";
import { nanos } from "../../../src/core/money.ts";
import type { ApiKey } from "../../../src/core/store.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z");

describe("parseNewKey", () => {
  test("defaults to the name Default Key, no expiry and no limits", () => {
    const defaults = {
      name: "Default Key", expiresAt: null, creditLimit: null, usdPerHour: null, requestsPerHour: null, allowedModels: null, allowedIps: null,
    };
    expect(parseNewKey({}, NOW)).toEqual({ ok: true, value: defaults });
    expect(parseNewKey({ name: null, expiresAt: null, creditLimitUsd: null }, NOW)).toEqual({ ok: true, value: defaults });
  });

  test("reads every field, exactly, and ignores unknown ones", () => {
    expect(
      parseNewKey(
        {
          name: "  ci  ",
          expiresAt: "2027-01-31T10:00:00+02:00",
          creditLimitUsd: 12.345678,
          rateLimitUsdPerHour: 0.1,
          rateLimitRequestsPerHour: 60,
          allowedModels: ["gpt-4.1", "deepseek-chat", "gpt-4.1"],
          allowedIps: ["10.1.2.3/8", "2001:db8::1"],
          unknown: "ignored",
        },
        NOW,
      ),
    ).toEqual({
      ok: true,
      value: {
        name: "ci",
        expiresAt: Date.parse("2027-01-31T08:00:00Z"),
        creditLimit: nanos(12_345_678_000n),
        usdPerHour: nanos(100_000_000n),
        requestsPerHour: 60,
        allowedModels: ["gpt-4.1", "deepseek-chat"],
        allowedIps: ["10.0.0.0/8", "2001:db8::1/128"],
      },
    });
  });
});

describe("parseKeyChange", () => {
  test("changes only present fields, and null clears optional ones", () => {
    expect(parseKeyChange({ creditLimitUsd: null, rateLimitRequestsPerHour: 5 }, NOW)).toEqual({
      ok: true,
      value: { creditLimit: null, requestsPerHour: 5 },
    });
    expect(parseKeyChange({}, NOW)).toEqual({ ok: true, value: {} });
  });

  test.each([
    ["a bare date, read as UTC midnight", "2026-06-02", Date.parse("2026-06-02T00:00:00Z")],
    ["fractional seconds", "2026-06-02T00:00:00.123Z", Date.parse("2026-06-02T00:00:00.123Z")],
    ["a compact offset", "2026-06-02T00:00:00-0500", Date.parse("2026-06-02T05:00:00Z")],
  ])("accepts an expiry as %s", (_title, expiresAt, ms) => {
    expect(parseKeyChange({ expiresAt }, NOW)).toEqual({ ok: true, value: { expiresAt: ms } });
  });

  const ISO = "must be an ISO 8601 date-time with a time zone, such as 2030-01-31T00:00:00Z";
  test.each([
    ["name", null, "must be a non-empty string"],
    ["name", "   ", "must be a non-empty string"],
    ["name", 7, "must be a non-empty string"],
    ["name", "x".repeat(101), "must be at most 100 characters"],
    ["expiresAt", "2026-06-01T11:59:59Z", "must be in the future"],
    ["expiresAt", "2026-06-01T12:00:00Z", "must be in the future"],
    ["expiresAt", "2027-01-01T00:00:00", ISO],
    ["expiresAt", "2027-02-30T00:00:00Z", ISO],
    ["expiresAt", "2027-01-01T24:00:00Z", ISO],
    ["expiresAt", "next tuesday", ISO],
    ["expiresAt", 1893456000000, ISO],
    ["creditLimitUsd", 0, "must be a positive number"],
    ["creditLimitUsd", -5, "must be a positive number"],
    ["creditLimitUsd", "10", "must be a positive number"],
    ["creditLimitUsd", 1_000_000.5, "must be at most 1000000"],
    ["creditLimitUsd", 0.0000001, "must have at most 6 decimal places"],
    ["rateLimitUsdPerHour", 0, "must be a positive number"],
    ["rateLimitUsdPerHour", 1.005, "must have at most 2 decimal places"],
    ["rateLimitRequestsPerHour", 0, "must be a positive whole number"],
    ["rateLimitRequestsPerHour", 2.5, "must be a positive whole number"],
    ["rateLimitRequestsPerHour", "10", "must be a positive whole number"],
    ["rateLimitRequestsPerHour", 1_000_000_001, "must be at most 1000000000"],
  ] as const)("refuses %s = %p: %s", (field, value, reason) => {
    expect(parseKeyChange({ [field]: value }, NOW)).toEqual({ ok: false, field, reason });
  });
});

const KEY: ApiKey = {
  id: "01900000-0000-7000-8000-000000000000",
  accountId: "acc",
  name: "ci",
  prefix: "gw-AbCdEfG",
  createdAt: Date.parse("2026-05-01T00:00:00Z"),
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
  creditLimit: null,
  usdPerHour: null,
  requestsPerHour: null,
  totalRequests: 0,
  totalSpend: nanos(0),
  kind: "api",
  allowedModels: null,
  allowedIps: null,
  ownerId: null,
};

describe("keyListView", () => {
  test("shows unset values as null and money with the spec's decimals", () => {
    expect(keyListView(KEY, NOW)).toEqual({
      id: KEY.id,
      name: "ci",
      prefix: "gw-AbCdEfG",
      status: "active",
      createdAt: "2026-05-01T00:00:00.000Z",
      lastUsedAt: null,
      expiresAt: null,
      creditLimitUsd: null,
      rateLimitUsdPerHour: null,
      rateLimitRequestsPerHour: null,
      total_requests: 0,
      total_spend_usd: "0.000000",
    });
    const restricted = { ...KEY, allowedModels: ["gpt-4.1"], allowedIps: ["10.0.0.0/8"] };
    expect(keyListView(restricted, NOW)).toMatchObject({ allowedModels: ["gpt-4.1"], allowedIps: ["10.0.0.0/8"] });
    expect(keyListView({ ...KEY, kind: "management" }, NOW)).toMatchObject({ management: true });
  });

  test("formats set values", () => {
    const key = {
      ...KEY, lastUsedAt: Date.parse("2026-05-02T03:04:05.678Z"), expiresAt: NOW - 1, creditLimit: nanos(12_500_000_000n),
      usdPerHour: nanos(1_250_000_000n), requestsPerHour: 100, totalRequests: 7, totalSpend: nanos(1_234_567_891n),
    };
    expect(keyListView(key, NOW)).toMatchObject({
      status: "expired",
      lastUsedAt: "2026-05-02T03:04:05.678Z",
      expiresAt: "2026-06-01T11:59:59.999Z",
      creditLimitUsd: "12.500000",
      rateLimitUsdPerHour: "1.25",
      rateLimitRequestsPerHour: 100,
      total_requests: 7,
      total_spend_usd: "1.234568",
    });
    expect(keyListView({ ...key, revokedAt: NOW }, NOW).status).toBe("revoked");
  });
});

test("keyCreatedView is snake_case with limits as numbers and the secret once", () => {
  const key = { ...KEY, expiresAt: Date.parse("2027-01-01T00:00:00Z"), creditLimit: nanos(10_500_000_000n), usdPerHour: nanos(2_000_000_000n), requestsPerHour: 30 };
  expect(keyCreatedView(key, "gw-secret")).toEqual({
    key: "gw-secret",
    name: "ci",
    expires_at: "2027-01-01T00:00:00.000Z",
    credit_limit_usd: 10.5,
    rate_limit_usd_per_hour: 2,
    rate_limit_requests_per_hour: 30,
    message: "Store this key now: it is shown only once and cannot be retrieved later.",
  });
});
