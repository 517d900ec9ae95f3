import { expect, test } from "bun:test";
import { emailSkeleton, freeCreditSkeleton, skeleton } from "../../../src/core/accounts/email-skeleton.ts";

const ALICE = emailSkeleton("alice@example.com");

test.each([
  ["a dotless ı", "al\u0131ce@example.com"],
  ["a Latin small capital A", "\u1d00lice@example.com"],
  ["a Latin alpha", "\u0251lice@example.com"],
  ["a small capital L", "a\u029fice@example.com"],
  ["a +tag", "alice+promo@example.com"],
  ["a +tag on a look-alike", "al\u0131ce+x+y@example.com"],
  ["a punycode domain that shows as a Cyrillic е", "alice@xn--xample-2of.com"],
  ["a domain that shows as a Cyrillic а", "alice@ex\u0430mple.com"],
])("%s has the address's key", (_title, email) => {
  expect(emailSkeleton(email)).toBe(ALICE);
});

test.each([
  ["another name", "alicia@example.com"],
  ["another domain", "alice@example.org"],
  ["an accent", "alicé@example.com"],
  ["dots in a non-Gmail address", "a.lice@example.com"],
])("%s has a key of its own", (_title, email) => {
  expect(emailSkeleton(email)).not.toBe(ALICE);
});

test("the skeleton is UTS #39's: NFD, then the confusables mapping, then NFD", () => {
  expect(skeleton("m")).toBe("rn");
  expect(skeleton("\u0430")).toBe("a");
  expect(skeleton("é")).toBe("e\u0301");
  expect(skeleton("\u1d0d")).toBe(skeleton("m"));
});

test("a malformed punycode label is kept as written", () => {
  expect(emailSkeleton("alice@xn--zz.com")).toBe(`alice@${skeleton("xn--zz.com")}`);
});

test.each([
  ["a.l.i.c.e+promo@gmail.com"],
  ["alice@googlemail.com"],
  ["al\u0131ce@gmail.com"],
  ["alice@gmai\u029f.com"],
])("the free credits' key of %p is alice@gmail.com's", (email) => {
  expect(freeCreditSkeleton(email)).toBe(freeCreditSkeleton("alice@gmail.com"));
});

test("the free credits' key keeps dots outside Gmail", () => {
  expect(freeCreditSkeleton("a.lice+x@example.com")).toBe(emailSkeleton("a.lice@example.com"));
  expect(freeCreditSkeleton("a.lice@example.com")).not.toBe(freeCreditSkeleton("alice@example.com"));
});
