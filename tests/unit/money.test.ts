import { describe, expect, test } from "bun:test";
import Decimal from "decimal.js";
import fc from "fast-check";
import { formatUsd, nanos, parseUsd, readUsd, requestCost } from "../../src/core/money.ts";

describe("parseUsd", () => {
  test.each([
    ["5", 5_000_000_000n],
    [0.1, 100_000_000n],
    ["0.000000001", 1n],
    [1e-9, 1n],
    [10000, 10_000_000_000_000n],
    ["123.456789012", 123_456_789_012n],
    ["007.5", 7_500_000_000n],
    ["99999999.999999999", 99_999_999_999_999_999n],
  ] as const)("reads %p exactly", (input, expected) => {
    expect(parseUsd(input)).toBe(nanos(expected));
  });

  test.each([["-1", -1_000_000_000n], [-0.5, -500_000_000n], ["-0.000000001", -1n]] as const)("reads %p exactly where negatives are allowed", (input, expected) => {
    expect(parseUsd(input, { signed: true })).toBe(nanos(expected));
    expect(readUsd(input)).toEqual({ ok: false, refusal: "negative" });
  });

  // Decimal digits only, as the README says: what Number() or decimal.js would also read is a different amount than meant.
  test.each([
    ["0x10", "format"], ["1e3", "format"], [" 1", "format"], ["1 ", "format"], ["1.", "format"], [".5", "format"],
    ["+1", "format"], ["1_000", "format"], ["1,000", "format"], ["Infinity", "format"], ["-Infinity", "format"], ["NaN", "format"],
    ["0b1", "format"], ["0o7", "format"], ["１", "format"], ["abc", "format"], ["", "format"], ["-", "format"], ["--1", "format"],
    ["1e-10", "format"], ["1.0000000001", "precision"], ["0.0000000001", "precision"], [Number.NaN, "format"],
    [Number.POSITIVE_INFINITY, "format"], [1e-10, "precision"],
  ] as const)("refuses %p (%s), signed or not", (input, refusal) => {
    expect(readUsd(input)).toEqual({ ok: false, refusal });
    expect(parseUsd(input, { signed: true })).toBeNull();
  });
});

describe("formatUsd", () => {
  test.each([
    [0n, 6, "0.000000"],
    [1n, 9, "0.000000001"],
    [1n, 6, "0.000000"],
    [500n, 6, "0.000001"],
    [499n, 6, "0.000000"],
    [5_000_000_000n, 4, "5.0000"],
    [1_930_000_000n, 4, "1.9300"],
    [123_456_789_012n, 2, "123.46"],
    [-2_500_000n, 6, "-0.002500"],
    [9_999_999_999_999_999n, 9, "9999999.999999999"],
  ] as const)("%p nano-USD to %p places is %p", (amount, places, expected) => {
    expect(formatUsd(nanos(amount), places)).toBe(expected);
  });

  test("rounds as decimal.js's toFixed(places, ROUND_HALF_UP) does, negative amounts and halves included", () => {
    const byDecimal = (amount: bigint, places: number) =>
      new Decimal(amount.toString()).div("1000000000").toFixed(places, Decimal.ROUND_HALF_UP);
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }), fc.constantFrom(2, 4, 6, 9), (amount, places) => {
        expect(formatUsd(nanos(amount), places as 2 | 4 | 6 | 9)).toBe(byDecimal(amount, places));
      }),
      { numRuns: 2000, examples: [[5_000_000n, 2], [-5_000_000n, 2], [-4_999_999n, 2], [-1n, 6]] },
    );
  });
});

describe("requestCost", () => {
  const gpt55 = { inputPerMTok: nanos(5_000_000_000n), outputPerMTok: nanos(30_000_000_000n) };
  const llama = { inputPerMTok: nanos(130_000_000n), outputPerMTok: nanos(400_000_000n) };
  const cheapest = { inputPerMTok: nanos(1n), outputPerMTok: nanos(1n) };

  test.each([
    ["one input token of gpt-5.5", 1, 0, gpt55, 5_000n],
    ["one output token of gpt-5.5", 0, 1, gpt55, 30_000n],
    ["200000 output tokens of gpt-5.5", 0, 200_000, gpt55, 6_000_000_000n],
    ["a sub-cent llama request", 37, 11, llama, 9_210n],
    ["nothing", 0, 0, gpt55, 0n],
    ["a fraction of a nano-USD rounds up to one", 1, 0, cheapest, 1n],
    ["rounding happens once, over the sum", 500_000, 500_000, cheapest, 1n],
    ["one token past a whole nano-USD rounds up", 1_000_001, 0, cheapest, 2n],
  ] as const)("%s", (_title, prompt, completion, prices, expected) => {
    expect(requestCost(prompt, completion, prices)).toBe(nanos(expected));
  });
});
