import { expect, test } from "bun:test";
import { lookAlikeProblem } from "../../../src/core/accounts/look-alike.ts";

const INVISIBLE = "email must not contain invisible or formatting characters";
const MIXED = "email must not mix scripts (such as Latin and Cyrillic) in one part";
const COMPAT = "email must not contain compatibility characters (such as fullwidth letters)";
const DECOMPOSED = "email must use composed characters (Unicode NFC)";

test.each([
  ["alice@example.com"],
  ["a.b+tag_1@sub.example.co.uk"],
  ["josé@example.com"],
  ["алиса@пример.рф"],
  ["алиса@example.com"],
  ["αλίκη@example.gr"],
  ["山田taro@example.jp"],
  ["김철수kim@example.kr"],
])("accepts %p", (email) => {
  expect(lookAlikeProblem(email)).toBeNull();
});

test.each([
  ["alice\u200b@example.com", INVISIBLE],
  ["ali\u200dce@example.com", INVISIBLE],
  ["alice\u202e@example.com", INVISIBLE],
  ["\ufeffalice@example.com", INVISIBLE],
  ["al\u00adice@example.com", INVISIBLE],
  ["alice\u3164@example.com", INVISIBLE],
  ["alice\ufe0f@example.com", INVISIBLE],
  ["alice@exam\u200bple.com", INVISIBLE],
  ["\u0430lice@example.com", MIXED],
  ["p\u0430yp\u0430l@example.com", MIXED],
  ["\u03b1lice@example.com", MIXED],
  ["alice@ex\u0430mple.com", MIXED],
  ["\uff41lice@example.com", COMPAT],
  ["\u{1d41a}lice@example.com", COMPAT],
  ["jose\u0301@example.com", DECOMPOSED],
])("refuses %p", (email, problem) => {
  expect(lookAlikeProblem(email)).toBe(problem);
});
