import { AppError } from "../errors.ts";
import type { RateLimitStore } from "../store.ts";

// How guessing at sign-in is bounded without letting a guesser lock the owner out: the device
// cookie scheme (sign-in-devices.ts). Only failures count towards these limits.
//
// A request carrying a valid device cookie for the account is counted on that device alone:
// nothing an attacker does elsewhere, nor at the same address, refuses it. Every other request
// is counted three times: per (e-mail, IP), so one source gets a few guesses at one account;
// per e-mail (the account's untrusted pool), a ceiling several times larger, so that guesses
// spread over many addresses stay bounded too; and per IP over every e-mail, so that one
// address cannot guess across many accounts. Exhausting the pool slows whoever has no device
// cookie, the owner on a new browser included, for the rest of the window.
// Successes never count, so an office behind one NAT does not lock itself out by signing in;
// the bound on argon2 work per IP is ATTEMPTS_PER_IP below.

const WINDOW_MS = 15 * 60 * 1000;
/** Failed sign-ins (passwords and codes, any e-mail) allowed per IP in the window, without a device cookie. */
const FAILURES_PER_IP = 10;
/**
 * Attempts of any outcome per IP per minute, without a device cookie: the bound on the argon2
 * work one address can cause (about 50 ms each), high enough for a busy office's sign-ins.
 */
export const ATTEMPTS_PER_IP = { limit: 60, windowMs: 60 * 1000 };

/** A wait as the 429's message names it: whole minutes, rounded up, as Retry-After's seconds are. */
export function waitText(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

const what = (kind: string) => (kind === "login-code" ? "two-factor codes" : "sign-in attempts");

/** Why a sign-in was refused (the 429's message): which counter, and how long until it reopens. */
export const THROTTLED = {
  device: (kind: string, s: number) => `Too many failed ${what(kind)} on this device. Try again in ${waitText(s)}.`,
  address: (kind: string, s: number) => `Too many failed ${what(kind)} from this address. Try again in ${waitText(s)}.`,
  pair: (kind: string, s: number) => `Too many failed ${what(kind)} for this e-mail from this address. Try again in ${waitText(s)}.`,
  email: (kind: string, s: number) =>
    `Too many failed ${what(kind)} for this e-mail from devices it has not signed in on. Sign in from one it has, or try again in ${waitText(s)}.`,
  work: (s: number) => `Too many sign-in requests from this address. Try again in ${waitText(s)}.`,
};

export interface FailureLimits {
  /** Failures allowed per known device (a valid device cookie for the account) in the window. */
  perDevice: number;
  /** Failures allowed per (e-mail, IP) in the window, without a device cookie. */
  perPair: number;
  /** Failures allowed per e-mail in the window from devices it has not signed in on (its untrusted pool). */
  ceiling: number;
}

/** Wrong passwords: 10 per known device; without one, 5 per (e-mail, IP) and 25 per e-mail. */
export const PASSWORD_FAILURES: FailureLimits = { perDevice: 10, perPair: 5, ceiling: 25 };
/**
 * Wrong second-factor codes, for someone who knew the password: 5 per known device; without
 * one, 5 per (e-mail, IP) and 10 per e-mail. A 6-digit code with one step either side is 3
 * chances in a million per guess.
 */
export const CODE_FAILURES: FailureLimits = { perDevice: 5, perPair: 5, ceiling: 10 };

/** Who is guessing: the normalized e-mail, the IP, and the hash of a valid device cookie for the account, or null. */
export interface Guesser {
  email: string;
  ip: string;
  device: string | null;
}

/** The counters of one kind of guess (`login`, `login-code`) by one guesser. */
export interface FailureGuard {
  /** 429, saying which limit and for how long, when one of the guesser's counters is full. */
  check(): Promise<void>;
  /** Counts a failure against each of the guesser's counters. */
  failed(): Promise<void>;
}

type Counter = { scope: string; limit: number; windowMs: number; now: number; message: (kind: string, s: number) => string };

/** The failure limits of `kind` for `guesser`. */
export function failureGuard(store: RateLimitStore, kind: string, limits: FailureLimits, guesser: Guesser, now: number): FailureGuard {
  const counter = (scope: string, limit: number, message: Counter["message"]): Counter => ({ scope, limit, windowMs: WINDOW_MS, now, message });
  const { email, ip, device } = guesser;
  const counters = device !== null
    ? [counter(`${kind}-failed:device:${device}`, limits.perDevice, THROTTLED.device)]
    : [
      // Shared by both kinds of guess: the address's failures at any e-mail.
      counter(`login-failed:ip:${ip}`, FAILURES_PER_IP, THROTTLED.address),
      counter(`${kind}-failed:${email}|${ip}`, limits.perPair, THROTTLED.pair),
      counter(`${kind}-failed:${email}`, limits.ceiling, THROTTLED.email),
    ];
  return {
    async check() {
      for (const { message, ...limit } of counters) {
        const decision = await store.checkRateLimit(limit);
        if (!decision.allowed) {
          throw new AppError("rate_limit_error", message(kind, decision.retryAfterSeconds), { retryAfterSeconds: decision.retryAfterSeconds });
        }
      }
    },
    async failed() {
      for (const { message: _, ...limit } of counters) await store.hitRateLimit(limit);
    },
  };
}
