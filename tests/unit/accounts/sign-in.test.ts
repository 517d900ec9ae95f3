import { describe, expect, test } from "bun:test";
import { freeCreditIdentity, parseEmail, parsePassword, signedInAccount } from "../../../src/core/accounts/sign-in.ts";
import { hashSessionToken, newSessionToken } from "../../../src/core/accounts/session.ts";
import { AppError } from "../../../src/core/errors.ts";
import { nanos } from "../../../src/core/money.ts";
import type { Account } from "../../../src/core/store.ts";

const refusal = (fn: () => unknown): { status: number; message: string } | null => {
  try {
    fn();
    return null;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, message: error.message };
  }
};

describe("parseEmail", () => {
  test.each([
    ["user@example.com", "user@example.com"],
    ["  Mixed.Case@Example.COM ", "mixed.case@example.com"],
    ["a+tag@sub.example.co.uk", "a+tag@sub.example.co.uk"],
  ])("accepts %p as %p", (input, expected) => {
    expect(parseEmail(input)).toBe(expected);
  });

  test.each([["plainaddress"], ["@example.com"], ["user@"], ["user@localhost"], ["user@exa mple.com"], ["a@b@c.com"], ["user@.com"], [`${"a".repeat(250)}@example.com`]])(
    "refuses %p with a 400",
    (input) => {
      expect(refusal(() => parseEmail(input))).toEqual({ status: 400, message: "email must be a valid e-mail address" });
    },
  );

  test.each([[undefined], [42], [null]])("refuses a missing or non-string e-mail (%p)", (input) => {
    expect(refusal(() => parseEmail(input))).toEqual({ status: 400, message: "email is required and must be a string" });
  });
});

describe("parsePassword", () => {
  test("accepts 10 to 200 characters and keeps the password as typed", () => {
    expect(parsePassword(" 123456789")).toBe(" 123456789");
    expect(parsePassword("x".repeat(200))).toBe("x".repeat(200));
  });

  test.each([
    ["123456789", "password must be at least 10 characters"],
    ["", "password must be at least 10 characters"],
    ["x".repeat(201), "password must be at most 200 characters"],
    [12345678, "password is required and must be a string"],
  ])("refuses %p", (input, message) => {
    expect(refusal(() => parsePassword(input))).toEqual({ status: 400, message });
  });
});

describe("freeCreditIdentity", () => {
  test.each([
    ["john.doe@gmail.com", "johndoe@gmail.com"],
    ["j.o.h.n.doe+promo@gmail.com", "johndoe@gmail.com"],
    ["johndoe+a+b@googlemail.com", "johndoe@gmail.com"],
    ["john.doe+promo@example.com", "john.doe+promo@example.com"],
    ["john.doe@gmail.com.evil.org", "john.doe@gmail.com.evil.org"],
  ])("%p claims as %p", (email, identity) => {
    expect(freeCreditIdentity(email)).toBe(identity);
  });
});

describe("session tokens", () => {
  test("are 32 random bytes in base64url, different every time", () => {
    const token = newSessionToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newSessionToken()).not.toBe(token);
    expect(newSessionToken(() => new Uint8Array(32).fill(255))).toBe("_".repeat(42) + "8");
  });

  test("are stored as their SHA-256 hex digest", () => {
    expect(hashSessionToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("signedInAccount", () => {
  const account: Account = {
    id: "a", email: "a@example.com", createdAt: 0, balance: nanos(0), reserved: nanos(0), inflight: 0,
    alertThreshold: null, spendLimit: null, bannedAt: null, deletedAt: null, emailVerifiedAt: null, totpEnabledAt: null, signupIp: null, isAdmin: false, kind: "person",
  };

  test.each([
    ["an active account is returned", account, null],
    ["a missing account is the endpoint's 404", null, { status: 404, message: "User not found" }],
    ["a deleted account is the endpoint's 404", { ...account, deletedAt: 1 }, { status: 404, message: "User not found" }],
    ["a deleted and banned account is still 404", { ...account, deletedAt: 1, bannedAt: 1 }, { status: 404, message: "User not found" }],
    ["a banned account is 403 Forbidden", { ...account, bannedAt: 1 }, { status: 403, message: "Forbidden" }],
  ] as const)("%s", (_title, candidate, expected) => {
    expect(refusal(() => signedInAccount({ account: candidate }, "User not found"))).toEqual(expected);
  });
});
