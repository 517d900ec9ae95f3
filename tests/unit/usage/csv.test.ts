import { expect, test } from "bun:test";
import { csvField, csvRecord } from "../../../src/core/usage/csv.ts";

test.each([
  ["plain", "plain"],
  [42, "42"],
  ["", ""],
  ["a,b", '"a,b"'],
  ['say "hi"', '"say ""hi"""'],
  ["line\nbreak", '"line\nbreak"'],
  ["carriage\rreturn", '"carriage\rreturn"'],
  [" padded ", " padded "],
])("the field %p is written as %p", (value, expected) => {
  expect(csvField(value)).toBe(expected);
});

test("a record joins its fields with commas and ends with CRLF", () => {
  expect(csvRecord(["a", 1, "b,c"])).toBe('a,1,"b,c"\r\n');
});
