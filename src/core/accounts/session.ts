import type { Account } from "../entities.ts";
import { cryptoRandom, sha256Hex, type RandomBytes } from "../crypto.ts";

export const SESSION_COOKIE = "gw_session";
/** Sessions last 30 days from their last extension (see sessionRenewal); signing in again starts a new one. */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const SESSION_TOKEN_BYTES = 32;


/** A session token: 32 bytes (256 bits) from a CSPRNG, base64url, so it can travel in a cookie as is. */
export const newSessionToken = (random: RandomBytes = cryptoRandom): string =>
  Buffer.from(random(SESSION_TOKEN_BYTES)).toString("base64url");

/**
 * Only this SHA-256 digest is stored, so a leaked sessions table cannot be replayed as cookies.
 * A plain hash suffices: the token has 256 bits of entropy, there is nothing to brute-force.
 */
export const hashSessionToken = sha256Hex;

/** A session used within this much of its end is extended to a full TTL (sliding sessions). */
const SLIDE_AFTER_MS = SESSION_TTL_MS / 2;
/** How stale `lastSeenAt` may get before a request writes it again: one write per few minutes, not per request. */
const LAST_SEEN_RESOLUTION_MS = 5 * 60 * 1000;

/**
 * What a request does to its session: nothing; note it as seen; or, in the last half of its
 * life, also extend it to a full 30 days (`extended`, so the cookie is sent again).
 */
export function sessionRenewal(
  session: { expiresAt: number; lastSeenAt: number | null },
  now: number,
): { lastSeenAt: number; expiresAt: number; extended: boolean } | null {
  if (session.expiresAt - now < SLIDE_AFTER_MS) return { lastSeenAt: now, expiresAt: now + SESSION_TTL_MS, extended: true };
  if (session.lastSeenAt === null || now - session.lastSeenAt >= LAST_SEEN_RESOLUTION_MS) {
    return { lastSeenAt: now, expiresAt: session.expiresAt, extended: false };
  }
  return null;
}

/**
 * The id a session is listed and ended by: derived from its token hash, so the list never
 * shows anything that is stored, and a session has an id without a column of its own.
 */
export const sessionId = (tokenHash: string): string =>
  sha256Hex(`session-id:${tokenHash}`).slice(0, 32);

export interface NewSession {
  tokenHash: string;
  accountId: string;
  now: number;
  expiresAt: number;
  ip?: string | null;
  userAgent?: string | null;
}

export interface FoundSession {
  accountId: string;
  account: Account | null;
  expiresAt: number;
  lastSeenAt: number | null;
}

export interface SessionStore {
  createSession(input: NewSession): Promise<void>;
  /** The unexpired session with this token hash; `account` is null when its row is gone. */
  findSession(tokenHash: string, now: number): Promise<FoundSession | null>;
  deleteSession(tokenHash: string): Promise<void>;
}
