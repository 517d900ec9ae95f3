import { Secret, TOTP } from "otpauth";
import type { AccountSecurityStore } from "./store.ts";
import type { AuditStore } from "./audit.ts";
import { AppError, MESSAGES } from "../errors.ts";
import type { RateLimitStore } from "../store.ts";
import { cryptoRandom, sha256Hex, type RandomBytes } from "../crypto.ts";

// Two-factor sign-in with TOTP (RFC 6238: SHA-1, 6 digits, 30 s, what every authenticator app
// reads) and single-use recovery codes.

const PERIOD_S = 30;
/** One step either side is accepted, for clocks a little apart. */
const WINDOW = 1;
const RECOVERY_CODES = 10;
const ISSUER = "Gateway";


const totpFor = (secret: string, label: string) =>
  new TOTP({ issuer: ISSUER, label, algorithm: "SHA1", digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secret) });

/** A new TOTP secret: 160 random bits (RFC 4226's recommendation), base32 for typing into an app. */
export const newTotpSecret = (random: RandomBytes = cryptoRandom): string => new Secret({ buffer: random(20).buffer as ArrayBuffer }).base32;

/** The `otpauth://` URI an authenticator app scans from the QR code. */
export const totpUri = (secret: string, email: string): string => totpFor(secret, email).toString();

/**
 * The time step a 6-digit `code` is valid at for `secret` around `now`, or null. otpauth
 * compares in constant time.
 */
export function totpStep(secret: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpFor(secret, "").validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_S) + delta;
}

/** The current code (for tests and the set-up check). */
export const totpCode = (secret: string, now: number): string => totpFor(secret, "").generate({ timestamp: now });

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/**
 * Recovery codes: 16 base32 characters (80 bits) each, shown as xxxx-xxxx-xxxx-xxxx. With
 * that much entropy a plain SHA-256 is enough to store them: there is nothing to brute-force.
 */
export function newRecoveryCodes(random: RandomBytes = cryptoRandom): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const chars = [...random(16)].map((byte) => BASE32[byte % 32]).join("").toLowerCase();
    return chars.match(/.{4}/g)!.join("-");
  });
}

/** How a recovery code is stored and looked up: dashes, spaces and case do not matter. */
export const hashRecoveryCode = (code: string): string =>
  sha256Hex(code.replace(/[\s-]/g, "").toLowerCase());

/**
 * Checks a sign-in's second factor: a TOTP code (each time step accepted once, so an
 * overheard code cannot be replayed) or an unused recovery code (used up by this sign-in).
 */
export async function checkSecondFactor(store: AccountSecurityStore, accountId: string, code: unknown, now: number): Promise<boolean> {
  if (typeof code !== "string" || code.length > 64) return false;
  const digits = code.replace(/\s/g, "");
  if (/^\d{6}$/.test(digits)) {
    const { secret } = await store.totpState(accountId);
    const step = secret === null ? null : totpStep(secret, digits, now);
    return step !== null && (await store.acceptTotpStep(accountId, step));
  }
  return store.useRecoveryCode(accountId, hashRecoveryCode(code), now);
}

export interface TotpContext {
  accountId: string;
  email: string;
  ip: string;
  now: number;
}

/** Starts setting up two-factor sign-in: a new pending secret, shown once, and its URI for the QR code. */
export async function beginTotpSetup(store: AccountSecurityStore, ctx: TotpContext): Promise<{ secret: string; uri: string }> {
  const { secret: current } = await store.totpState(ctx.accountId);
  if (current !== null) throw new AppError("conflict", "Two-factor sign-in is already on");
  const secret = newTotpSecret();
  await store.setPendingTotp(ctx.accountId, secret);
  return { secret, uri: totpUri(secret, ctx.email) };
}

/**
 * Confirms the set-up with a code from the app, which proves the app holds the secret, and
 * turns two-factor sign-in on. Answers the recovery codes, which are shown this once.
 */
export async function confirmTotp(store: AccountSecurityStore, code: unknown, ctx: TotpContext): Promise<string[]> {
  const { secret, pendingSecret } = await store.totpState(ctx.accountId);
  if (secret !== null) throw new AppError("conflict", "Two-factor sign-in is already on");
  if (pendingSecret === null) throw new AppError("invalid_request_error", "Start the set-up first");
  const step = typeof code === "string" ? totpStep(pendingSecret, code.replace(/\s/g, ""), ctx.now) : null;
  if (step === null) throw new AppError("invalid_request_error", MESSAGES.totpInvalid);
  const codes = newRecoveryCodes();
  const enabled = await store.enableTotp({
    accountId: ctx.accountId, secret: pendingSecret, step, codeHashes: codes.map(hashRecoveryCode), ip: ctx.ip, now: ctx.now,
  });
  if (!enabled) throw new AppError("conflict", "The set-up changed meanwhile; start again");
  return codes;
}

/** Wrong codes allowed when turning two-factor sign-in off, per account, as many as sign-in allows per e-mail. */
const DISABLE_FAILURES = { limit: 10, windowMs: 15 * 60 * 1000 };

/**
 * Turns two-factor sign-in off; it takes a current code (or a recovery code), so a stolen
 * session alone cannot, and wrong codes are counted so that it cannot guess one either. Only
 * wrong ones count: the owner's right code is never refused for someone else's guesses.
 */
export async function turnOffTotp(store: AccountSecurityStore & AuditStore & RateLimitStore, code: unknown, ctx: TotpContext): Promise<void> {
  const { secret } = await store.totpState(ctx.accountId);
  if (secret === null) return;
  const limit = { scope: `totp-disable-failed:${ctx.accountId}`, ...DISABLE_FAILURES, now: ctx.now };
  const decision = await store.checkRateLimit(limit);
  if (!decision.allowed) throw new AppError("rate_limit_error", MESSAGES.signInThrottled, { retryAfterSeconds: decision.retryAfterSeconds });
  if (!(await checkSecondFactor(store, ctx.accountId, code, ctx.now))) {
    await store.hitRateLimit(limit);
    throw new AppError("invalid_request_error", MESSAGES.totpInvalid);
  }
  await store.disableTotp({ accountId: ctx.accountId, ip: ctx.ip, now: ctx.now });
}
