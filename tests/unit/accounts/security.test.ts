import { describe, expect, test } from "bun:test";
import { resetMail, verificationMail } from "../../../src/core/accounts/mail.ts";
import { parseAuditPage } from "../../../src/core/accounts/audit.ts";
import { SESSION_TTL_MS, sessionId, sessionRenewal } from "../../../src/core/accounts/session.ts";
import { hashRecoveryCode, newRecoveryCodes, newTotpSecret, totpCode, totpStep, totpUri } from "../../../src/core/accounts/totp.ts";

const NOW = Date.UTC(2026, 5, 1, 12);
const DAY = 24 * 60 * 60 * 1000;
const MINUTE = 60 * 1000;

describe("sessionRenewal", () => {
  test.each([
    ["a fresh session seen a minute ago: nothing", { expiresAt: NOW + 29 * DAY, lastSeenAt: NOW - MINUTE }, null],
    ["one not seen for 5 minutes: noted as seen", { expiresAt: NOW + 29 * DAY, lastSeenAt: NOW - 5 * MINUTE },
      { lastSeenAt: NOW, expiresAt: NOW + 29 * DAY, extended: false }],
    ["one made before last use was recorded: noted", { expiresAt: NOW + 20 * DAY, lastSeenAt: null },
      { lastSeenAt: NOW, expiresAt: NOW + 20 * DAY, extended: false }],
    ["one in the last half of its life: extended to 30 days", { expiresAt: NOW + 14 * DAY, lastSeenAt: NOW - MINUTE },
      { lastSeenAt: NOW, expiresAt: NOW + SESSION_TTL_MS, extended: true }],
  ] as const)("%s", (_title, session, expected) => {
    expect(sessionRenewal(session, NOW)).toEqual(expected);
  });

  test("a session's id is 32 hex characters, stable, and not its token hash", () => {
    const hash = "a".repeat(64);
    expect(sessionId(hash)).toMatch(/^[0-9a-f]{32}$/);
    expect(sessionId(hash)).toBe(sessionId(hash));
    expect(hash).not.toContain(sessionId(hash));
  });
});

describe("parseAuditPage", () => {
  test.each([[undefined, 1], ["", 1], ["1", 1], ["1000", 1000]] as const)("reads %p as page %p", (raw, page) => {
    expect(parseAuditPage(raw)).toBe(page);
  });
  test.each(["0", "1001", "-1", "1.5", "abc", "1e3", " 1"])("refuses %p with 400", (raw) => {
    expect(() => parseAuditPage(raw)).toThrow("page must be a whole number from 1 to 1000");
  });
});

describe("TOTP", () => {
  const secret = newTotpSecret();

  test("secrets are 160 random bits in base32, and the URI names the issuer and the account", () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    expect(totpUri(secret, "a@example.com")).toBe(
      `otpauth://totp/Gateway:a%40example.com?issuer=Gateway&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
    );
  });

  test.each([
    ["the current step", 0, 0],
    ["the step before (a slow clock)", -30_000, -1],
    ["the step after (a fast clock)", 30_000, 1],
  ])("accepts a code of %s and names its step", (_title, offsetMs, delta) => {
    expect(totpStep(secret, totpCode(secret, NOW + offsetMs), NOW)).toBe(Math.floor(NOW / 30_000) + delta);
  });

  test.each([
    ["two steps away", () => totpCode(secret, NOW + 60_000)],
    ["not six digits", () => "12345"],
    ["letters", () => "abcdef"],
  ])("refuses a code %s", (_title, code) => {
    expect(totpStep(secret, code(), NOW)).toBeNull();
  });
});

describe("recovery codes", () => {
  test("are ten distinct codes of 16 base32 characters in groups of four", () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
  });

  test("hash the same whatever the dashes, spaces and case", () => {
    const hash = hashRecoveryCode("abcd-efgh-ijkl-mnop");
    expect(hashRecoveryCode("ABCD EFGH IJKL MNOP")).toBe(hash);
    expect(hashRecoveryCode("abcdefghijklmnop")).toBe(hash);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("account e-mails", () => {
  test.each([
    ["verification", verificationMail, "Confirm your e-mail address", "https://gw.example/dashboard/verify?token=T0KEN", "24 hours"],
    ["reset", resetMail, "Reset your gateway password", "https://gw.example/dashboard/reset?token=T0KEN", "one hour"],
  ] as const)("the %s e-mail carries its link and says how long it works", (_title, mail, subject, link, lifetime) => {
    const message = mail("https://gw.example/dashboard", "T0KEN");
    expect(message.subject).toBe(subject);
    expect(message.text).toContain(`\n${link}\n`);
    expect(message.text).toContain(lifetime);
  });
});
