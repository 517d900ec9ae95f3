import { describe, expect, test } from "bun:test";
import { AppError } from "../../../src/core/errors.ts";
import { nanos } from "../../../src/core/money.ts";
import { parseAlertThreshold, parseSpendSafetyLimit } from "../../../src/core/accounts/settings.ts";

const outcome = (fn: () => unknown) => {
  try {
    return { stored: fn() };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, error: error.message };
  }
};

const THRESHOLD_RANGE = "threshold must be a number from 0 to 100, or null to turn alerts off";
const LIMIT_RANGE = "limit must be a number from 0 to 10000, or -1 for no limit";

describe("parseAlertThreshold", () => {
  test.each([
    [0, nanos(0)],
    [100, nanos(100_000_000_000n)],
    [12.5, nanos(12_500_000_000n)],
    [0.000000001, nanos(1)],
    [null, null],
  ])("stores %p as %p", (threshold, stored) => {
    expect(outcome(() => parseAlertThreshold({ threshold }))).toEqual({ stored });
  });

  test.each([[-0.01], [100.01], [-1], ["50"], ["NaN"], [true], [[]], [{}], [Number.NaN], [undefined]])(
    "refuses %p",
    (threshold) => {
      expect(outcome(() => parseAlertThreshold({ threshold }))).toEqual({ status: 400, error: THRESHOLD_RANGE });
    },
  );

  test("refuses more precision than a nano-USD", () => {
    expect(outcome(() => parseAlertThreshold({ threshold: 1.0000000001 }))).toEqual({
      status: 400,
      error: "threshold must have at most 9 decimal places",
    });
  });
});

describe("parseSpendSafetyLimit", () => {
  test.each([
    [-1, null],
    [0, nanos(0)],
    [10000, nanos(10_000_000_000_000n)],
    [0.5, nanos(500_000_000n)],
  ])("stores %p as %p", (limit, stored) => {
    expect(outcome(() => parseSpendSafetyLimit({ limit }))).toEqual({ stored });
  });

  test.each([[-2], [-0.5], [10000.01], [null], ["-1"], ["100"], [undefined], [Number.POSITIVE_INFINITY]])(
    "refuses %p",
    (limit) => {
      expect(outcome(() => parseSpendSafetyLimit({ limit }))).toEqual({ status: 400, error: LIMIT_RANGE });
    },
  );
});
