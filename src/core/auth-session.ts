import { createHash } from "node:crypto";
import type { RandomBytes } from "./keys.ts";

export const SESSION_COOKIE = "gw_session";
/** Sessions last 30 days from sign-in; signing in again starts a new one. */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const SESSION_TOKEN_BYTES = 32;

const cryptoRandom: RandomBytes = (length) => crypto.getRandomValues(new Uint8Array(length));

/** A session token: 32 bytes (256 bits) from a CSPRNG, base64url, so it can travel in a cookie as is. */
export const newSessionToken = (random: RandomBytes = cryptoRandom): string =>
  Buffer.from(random(SESSION_TOKEN_BYTES)).toString("base64url");

/**
 * Only this SHA-256 digest is stored, so a leaked sessions table cannot be replayed as cookies.
 * A plain hash suffices: the token has 256 bits of entropy, there is nothing to brute-force.
 */
export const hashSessionToken = (token: string): string => createHash("sha256").update(token).digest("hex");
