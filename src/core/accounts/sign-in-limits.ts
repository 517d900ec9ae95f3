import { AppError, MESSAGES } from "../errors.ts";
import type { RateLimitStore } from "../store.ts";

// How guessing at sign-in is bounded without letting a guesser lock the owner out.
//
// Only failures count towards these limits, and they are counted twice: per (e-mail, IP), so
// one source gets a few guesses at one account, and per e-mail, a ceiling several times larger,
// so that guesses spread over many addresses stay bounded too. An attacker at one IP exhausts
// only its own pair: the owner, elsewhere, still signs in. The ceiling would let a handful of
// addresses lock the owner out, so an IP that signed in to the account successfully in the last
// 30 days is not held to it (only to its own pair): the owner's usual places keep working.
// (Every attempt, failed or not, is also counted per IP in sign-in.ts: the bound on argon2 work.)

const WINDOW_MS = 15 * 60 * 1000;
const KNOWN_IP_MS = 30 * 24 * 60 * 60 * 1000;

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

function refuse(retryAfterSeconds: number): never {
  throw new AppError("rate_limit_error", MESSAGES.signInThrottled, { retryAfterSeconds });
}

/**
 * The failure limits of `kind` for `email` from `ip`. The e-mail is the normalized one, so
 * that spellings of one address share their counters.
 */
export function failureGuard(store: RateLimitStore, kind: string, limits: FailureLimits, email: string, ip: string, now: number): FailureGuard {
  const pair = { scope: `${kind}-failed:${email}|${ip}`, limit: limits.perPair, windowMs: WINDOW_MS, now };
  const ceiling = { scope: `${kind}-failed:${email}`, limit: limits.ceiling, windowMs: WINDOW_MS, now };
  const knownScope = `login-ok:${email}|${ip}`;
  return {
    async check() {
      const own = await store.checkRateLimit(pair);
      if (!own.allowed) refuse(own.retryAfterSeconds);
      const overall = await store.checkRateLimit(ceiling);
      if (!overall.allowed && (await store.countRecentEvents(knownScope, now - KNOWN_IP_MS)) === 0) refuse(overall.retryAfterSeconds);
    },
    async failed() {
      await store.hitRateLimit(pair);
      await store.hitRateLimit(ceiling);
    },
    async succeeded() {
      // One event per (e-mail, IP) per 30 days: a limit of 1 records it only when none is recent.
      await store.hitRateLimit({ scope: knownScope, limit: 1, windowMs: KNOWN_IP_MS, now });
    },
  };
}
