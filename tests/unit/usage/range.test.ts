import { expect, test } from "bun:test";
import { parseExportRange } from "../../../src/core/usage/range.ts";

const DAY = 86_400_000;

test.each([
  ["a day", "2026-03-14", undefined, { from: Date.UTC(2026, 2, 14) }],
  ["a day as --to includes all of it", undefined, "2026-03-14", { until: Date.UTC(2026, 2, 14) + DAY }],
  ["a timestamp without offset is UTC", "2026-03-14T09:30", "2026-03-14T09:30:15.250Z", { from: Date.UTC(2026, 2, 14, 9, 30), until: Date.UTC(2026, 2, 14, 9, 30, 15, 250) }],
  ["an offset is honoured", "2026-03-14T09:30:00+02:00", undefined, { from: Date.UTC(2026, 2, 14, 7, 30) }],
  ["neither", undefined, undefined, {}],
] as const)("%s", (_title, from, to, expected) => {
  expect(parseExportRange(from, to)).toEqual(expected);
});

test.each([
  ["2026-02-30", undefined, "--from must be a UTC date"],
  ["2026-02-30T10:00Z", undefined, "--from must be a UTC date"],
  ["yesterday", undefined, "--from must be a UTC date"],
  [undefined, "2026-03-14T25:00Z", "--to must be a UTC date"],
  ["1710408600000", undefined, "--from must be a UTC date"],
  ["2026-03-15", "2026-03-14", "--from must be before --to"],
  ["2026-03-14T10:00Z", "2026-03-14T10:00Z", "--from must be before --to"],
] as const)("refuses --from %p --to %p", (from, to, says) => {
  expect(() => parseExportRange(from, to)).toThrow(says);
});
