import { AppError } from "../errors.ts";
import type { RateLimitStore } from "../store.ts";

// How guessing at sign-in is bounded without letting a guesser lock the owner out.
//
// Only failures count towards these limits, and they are counted twice: per (e-mail, IP), so
// one source gets a few guesses at one account, and per e-mail, a ceiling several times larger,
// so that guesses spread over many addresses stay bounded too. An attacker at one IP exhausts
// only its own pair: the owner, elsewhere, still signs in. The ceiling would let a handful of
// addresses lock the owner out, so an IP that signed in to the account successfully in the last
// 30 days is not held to it (only to its own pair): the owner's usual places keep working.
// Failures of any e-mail are counted per IP as well (10 in 15 minutes): one address cannot
// guess across many accounts. Successes never count there, so an office behind one NAT does
// not lock itself out by signing in; the bound on argon2 work per IP is ATTEMPTS_PER_IP below.

const WINDOW_MS = 15 * 60 * 1000;
const KNOWN_IP_MS = 30 * 24 * 60 * 60 * 1000;
/** Failed sign-ins (passwords and codes, any e-mail) allowed per IP in the window. */
const FAILURES_PER_IP = 10;
/**
 * Attempts of any outcome per IP per minute: the bound on the argon2 work one address can
 * cause (about 50 ms each), high enough for a busy office's sign-ins.
 */
export const ATTEMPTS_PER_IP = { limit: 60, windowMs: 60 * 1000 };

/** A wait as the 429's message names it: whole minutes, rounded up, as Retry-After's seconds are. */
export function waitText(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** Why a sign-in was refused (the 429's message): which counter, and how long until it reopens. */
export const THROTTLED = {
  address: (kind: string, s: number) => `Too many failed ${what(kind)} from this address. Try again in ${waitText(s)}.`,
  pair: (kind: string, s: number) => `Too many failed ${what(kind)} for this e-mail from this address. Try again in ${waitText(s)}.`,
  email: (kind: string, s: number) =>
    `Too many failed ${what(kind)} for this e-mail from devices it has not signed in on. Sign in from one it has, or try again in ${waitText(s)}.`,
  work: (s: number) => `Too many sign-in requests from this address. Try again in ${waitText(s)}.`,
};
const what = (kind: string) => (kind === "login-code" ? "two-factor codes" : "sign-in attempts");

export interface FailureLimits {
  /** Failures allowed per (e-mail, IP) in the window. */
  perPair: number;
  /** Failures allowed per e-mail in the window, from IPs that have not signed in to it before. */
  ceiling: number;
}

/** Wrong passwords: 5 per (e-mail, IP), 25 per e-mail (five attacker addresses' worth). */
export const PASSWORD_FAILURES: FailureLimits = { perPair: 5, ceiling: 25 };
/**
 * Wrong second-factor codes, for someone who knew the password: 5 per (e-mail, IP), 10 per
 * e-mail. A 6-digit code with one step either side is 3 chances in a million per guess.
 */
export const CODE_FAILURES: FailureLimits = { perPair: 5, ceiling: 10 };

/** The counters of one kind of guess (`login`, `login-code`) at one e-mail from one IP. */
export interface FailureGuard {
  /** 429 when this IP, or (from an unfamiliar IP) the e-mail, has failed too often. */
  check(): Promise<void>;
  /** Counts a failure against the pair and the ceiling. */
  failed(): Promise<void>;
  /** Remembers the IP as one the account signs in from. */
  succeeded(): Promise<void>;
}

function refuse(message: (kind: string, s: number) => string, kind: string, retryAfterSeconds: number): never {
  throw new AppError("rate_limit_error", message(kind, retryAfterSeconds), { retryAfterSeconds });
}

/**
 * The failure limits of `kind` for `email` from `ip`. The e-mail is the normalized one, so
 * that spellings of one address share their counters.
 */
export function failureGuard(store: RateLimitStore, kind: string, limits: FailureLimits, email: string, ip: string, now: number): FailureGuard {
  const pair = { scope: `${kind}-failed:${email}|${ip}`, limit: limits.perPair, windowMs: WINDOW_MS, now };
  const ceiling = { scope: `${kind}-failed:${email}`, limit: limits.ceiling, windowMs: WINDOW_MS, now };
  // Shared by both kinds of guess: the address's failures at any e-mail.
  const address = { scope: `login-failed:ip:${ip}`, limit: FAILURES_PER_IP, windowMs: WINDOW_MS, now };
  const knownScope = `login-ok:${email}|${ip}`;
  return {
    async check() {
      const fromIp = await store.checkRateLimit(address);
      if (!fromIp.allowed) refuse(THROTTLED.address, kind, fromIp.retryAfterSeconds);
      const own = await store.checkRateLimit(pair);
      if (!own.allowed) refuse(THROTTLED.pair, kind, own.retryAfterSeconds);
      const overall = await store.checkRateLimit(ceiling);
      if (!overall.allowed && (await store.countRecentEvents(knownScope, now - KNOWN_IP_MS)) === 0) {
        refuse(THROTTLED.email, kind, overall.retryAfterSeconds);
      }
    },
    async failed() {
      await store.hitRateLimit(address);
      await store.hitRateLimit(pair);
      await store.hitRateLimit(ceiling);
    },
    async succeeded() {
      // One event per (e-mail, IP) per 30 days: a limit of 1 records it only when none is recent.
      await store.hitRateLimit({ scope: knownScope, limit: 1, windowMs: KNOWN_IP_MS, now });
    },
  };
}
