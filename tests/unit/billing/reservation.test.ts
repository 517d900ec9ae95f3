import { describe, expect, test } from "bun:test";
import type { AppError } from "../../../src/core/errors.ts";
import { MINUTE_MS, minuteOf, secondsUntilFits } from "../../../src/core/billing/hour-window.ts";
import { nanos, parseUsd, type Nanos } from "../../../src/core/money.ts";
import { decideReservation, largestFittingMaxTokens, type ReservationSnapshot } from "../../../src/core/billing/reservation.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
// 30 seconds into a minute, so that waits are not whole minutes by accident.
const NOW = Date.UTC(2026, 10, 23, 12, 0, 30);
const M = minuteOf(NOW);
const POLICY = { maxConcurrentRequests: 3, dashboardUrl: "https://gw.test" };
/** $0.001 of input plus $0.0001 per output token. */
const costOf = (maxTokens: number) => nanos(1_000_000n + BigInt(maxTokens) * 100_000n);

const base: ReservationSnapshot = {
  inflight: 0,
  available: usd("1"),
  reserved: usd("0"),
  accountSpendLimit: null,
  accountHour: [],
  key: { creditLimit: null, usdPerHour: null, requestsPerHour: null, spent: usd("0"), open: { amount: usd("0"), requests: 0 }, hour: [] },
};
const withKey = (key: Partial<ReservationSnapshot["key"]>, rest: Partial<ReservationSnapshot> = {}): ReservationSnapshot => ({
  ...base, ...rest, key: { ...base.key, ...key },
});
const minute = (ago: number, spend: string, requests = 0) => ({ minute: M - ago, spend: usd(spend), requests });

const shape = (error: AppError | null) =>
  error && { kind: error.kind, message: error.message, retryAfterSeconds: error.retryAfterSeconds, shouldRetry: error.shouldRetry };
const decide = (s: ReservationSnapshot, amount: string, withCost = true) =>
  shape(decideReservation(s, { amount: usd(amount), ...(withCost ? { costOf } : {}) }, POLICY, NOW));

describe("decideReservation", () => {
  test("a request within every limit is admitted, also when it meets a limit exactly", () => {
    expect(decide(base, "0.5")).toBeNull();
    expect(decide({ ...base, accountSpendLimit: usd("0.05"), accountHour: [minute(5, "0.02")], reserved: usd("0.01") }, "0.02")).toBeNull();
    expect(decide(withKey({ usdPerHour: usd("0.05"), hour: [minute(5, "0.02")], open: { amount: usd("0.01"), requests: 1 } }), "0.02")).toBeNull();
    expect(decide(withKey({ requestsPerHour: 3, hour: [minute(5, "0", 1)], open: { amount: usd("0"), requests: 1 } }), "0.01")).toBeNull();
    expect(decide(withKey({ creditLimit: usd("0.05"), spent: usd("0.02"), open: { amount: usd("0.01"), requests: 1 } }), "0.02")).toBeNull();
    expect(decide(base, "1")).toBeNull();
  });

  test("the concurrency limit refuses first, retryable after a second", () => {
    expect(decide({ ...base, inflight: 3, available: usd("0") }, "2")).toEqual({
      kind: "rate_limit_error",
      message: "Too many concurrent requests: at most 3 chat requests may be in flight per account",
      retryAfterSeconds: 1,
      shouldRetry: true,
    });
  });

  test("the account's hourly safety limit counts settled spend, open reservations and this request, and says when it would fit", () => {
    const s = { ...base, accountSpendLimit: usd("0.05"), accountHour: [minute(50, "0.01"), minute(10, "0.02")], reserved: usd("0.01") };
    expect(decide(s, "0.015")).toEqual({
      kind: "rate_limit_error",
      message:
        "Hourly spend safety limit exceeded: the account's limit is $0.050000 per hour: the last hour spent $0.030000 and requests in flight reserve $0.010000, and this request reserves up to $0.015000. The largest max_tokens that fits is 90.",
      // Once the bucket of 50 minutes ago leaves: 10 minutes from its start, less the 30 s gone.
      retryAfterSeconds: 570,
      shouldRetry: false,
    });
  });

  test("the key's hourly spend limit counts its open reservations; without costOf there is no hint", () => {
    const s = withKey({ usdPerHour: usd("0.05"), hour: [minute(30, "0.04")], open: { amount: usd("0.005"), requests: 2 } });
    expect(decide(s, "0.006", false)).toEqual({
      kind: "rate_limit_error",
      message:
        "API key hourly spend limit exceeded: the key's limit is $0.050000 per hour: the last hour spent $0.040000 and requests in flight reserve $0.005000, and this request reserves up to $0.006000",
      retryAfterSeconds: 30 * 60 - 30,
      shouldRetry: false,
    });
  });

  test.each([
    ["over a positive limit", "0.01"],
    ["over a limit of 0", "0"],
  ])("a reservation alone %s gets no Retry-After and is not retryable", (_title, limit) => {
    const refused = decide(withKey({ usdPerHour: usd(limit) }), "0.02", false);
    expect(refused).toMatchObject({ kind: "rate_limit_error", retryAfterSeconds: undefined, shouldRetry: false });
    expect(decide({ ...base, accountSpendLimit: usd(limit) }, "0.02", false)).toMatchObject({ retryAfterSeconds: undefined, shouldRetry: false });
  });

  test("the key's hourly request limit counts requests in flight and this one; a limit of 0 gets no Retry-After", () => {
    const s = withKey({ requestsPerHour: 3, hour: [minute(40, "0", 1), minute(20, "0", 1)], open: { amount: usd("0.01"), requests: 1 } });
    expect(decide(s, "0.01")).toEqual({
      kind: "rate_limit_error",
      message: "API key hourly request limit reached: 3 requests in the last hour, limit 3",
      retryAfterSeconds: 20 * 60 - 30,
      shouldRetry: false,
    });
    expect(decide(withKey({ requestsPerHour: 0 }), "0.01")).toMatchObject({ retryAfterSeconds: undefined, shouldRetry: false });
  });

  test("the key's credit limit and the balance refuse with 402, naming the largest max_tokens that fits", () => {
    const limited = withKey({ creditLimit: usd("0.05"), spent: usd("0.03"), open: { amount: usd("0.01"), requests: 1 } });
    expect(decide(limited, "0.02")).toEqual({
      kind: "insufficient_credits",
      message:
        "API key credit limit exceeded: the key's limit is $0.050000, $0.040000 is spent or reserved, and this request may cost up to $0.020000. The largest max_tokens that fits is 90.",
      retryAfterSeconds: undefined,
      shouldRetry: false,
    });
    expect(decide({ ...base, available: usd("0.0015") }, "0.02")).toEqual({
      kind: "insufficient_credits",
      message:
        "Insufficient credits: available balance $0.001500, estimated cost $0.020000. Top up at https://gw.test/topup. The largest max_tokens that fits is 5.",
      retryAfterSeconds: undefined,
      shouldRetry: false,
    });
  });

  test("no hint when not even one output token fits", () => {
    expect(decide({ ...base, available: usd("0.001") }, "0.02")?.message).toBe(
      "Insufficient credits: available balance $0.001000, estimated cost $0.020000. Top up at https://gw.test/topup",
    );
  });

  test("the hint fits every cap on amounts, not only the one that refused", () => {
    const s = { ...base, available: usd("0.002"), accountSpendLimit: usd("0.01") };
    expect(decide(s, "0.02")?.message).toEndWith("this request reserves up to $0.020000. The largest max_tokens that fits is 10.");
  });

  test("limits refuse in order: account hour, key spend per hour, key requests per hour, key credit limit, balance", () => {
    const everything: ReservationSnapshot = {
      ...base,
      available: usd("0"),
      accountSpendLimit: usd("0"),
      key: { ...base.key, creditLimit: usd("0"), usdPerHour: usd("0"), requestsPerHour: 0 },
    };
    const order = [
      "Hourly spend safety limit", "API key hourly spend limit", "API key hourly request limit", "API key credit limit", "Insufficient credits",
    ];
    const lifted = [
      (s: ReservationSnapshot) => ({ ...s, accountSpendLimit: null }),
      (s: ReservationSnapshot) => ({ ...s, key: { ...s.key, usdPerHour: null } }),
      (s: ReservationSnapshot) => ({ ...s, key: { ...s.key, requestsPerHour: null } }),
      (s: ReservationSnapshot) => ({ ...s, key: { ...s.key, creditLimit: null } }),
      (s: ReservationSnapshot) => ({ ...s, available: usd("1") }),
    ];
    let s = everything;
    for (const [i, lift] of lifted.entries()) {
      expect(decide(s, "0.01")?.message).toStartWith(order[i] as string);
      s = lift(s);
    }
    expect(decide(s, "0.01")).toBeNull();
  });
});

describe("secondsUntilFits", () => {
  const used = [{ minute: M - 59, amount: 3n }, { minute: M - 30, amount: 2n }];
  test.each([
    ["the oldest minute leaving is enough", 1n, 5n, 60 - 30],
    ["two minutes must leave", 1n, 3n, 30 * 60 - 30],
    ["the open reservations must settle and leave too, at the start of the minute an hour from now", 4n, 4n, 60 * 60 - 30],
  ])("%s", (_title, open, limit, seconds) => {
    expect(secondsUntilFits(used, open, 2n, limit, NOW)).toBe(seconds);
  });

  test("null when the request alone exceeds the limit, and at least one second otherwise", () => {
    expect(secondsUntilFits([], 0n, 6n, 5n, NOW)).toBeNull();
    expect(secondsUntilFits([{ minute: M - 60, amount: 9n }], 0n, 1n, 5n, (M + 1) * MINUTE_MS - 1)).toBe(1);
  });
});

describe("largestFittingMaxTokens", () => {
  test.each([
    ["exactly at the room", 1_000_000n + 4096n * 100_000n, 4096],
    ["just below the next token", 1_000_000n + 4097n * 100_000n - 1n, 4096],
    ["one token", 1_100_000n, 1],
    ["not even one token", 1_099_999n, null],
  ])("%s", (_title, room, expected) => {
    expect(largestFittingMaxTokens(costOf, room)).toBe(expected);
  });

  test("a cost that never grows gives no answer rather than searching forever", () => {
    expect(largestFittingMaxTokens(() => nanos(1), 5n)).toBeNull();
  });
});

describe("an organization member's daily cap", () => {
  const capped = (cap: string, committed: string, available = "1"): ReservationSnapshot => ({
    ...base, available: usd(available), member: { cap: usd(cap), committed: usd(committed) },
  });

  test("admits a request that meets the cap exactly: spent and held today plus this one may equal it", () => {
    expect(decide(capped("0.05", "0.03"), "0.02")).toBeNull();
  });

  test("refuses one nano-dollar more with a 402 naming the cap and the largest max_tokens that fits", () => {
    expect(decide(capped("0.05", "0.03"), "0.020000001")).toEqual({
      kind: "insufficient_credits",
      message: "Member daily spend cap exceeded: your cap in this organization is $0.050000 per day (UTC), $0.030000 is spent or reserved today, and this request may cost up to $0.020000. The largest max_tokens that fits is 190.",
      retryAfterSeconds: undefined,
      shouldRetry: false,
    });
  });

  test("is checked after the key's own limits and before the balance", () => {
    expect(decide({ ...capped("0.05", "0.05"), key: { ...base.key, creditLimit: usd("0.01") } }, "0.02")?.message).toStartWith("API key credit limit exceeded");
    expect(decide(capped("0.05", "0.05", "0"), "0.02")?.message).toStartWith("Member daily spend cap exceeded");
  });
});
