import { cryptoRandom, sha256Hex, type RandomBytes } from "../crypto.ts";

const KEY_PREFIX = "gw-";
/** Management keys call the account endpoints, never /v1; their prefix says so at a glance. */
export const MANAGEMENT_KEY_PREFIX = "gw-mgmt-";
const SECRET_LENGTH = 48;
/** How much of the secret the list view shows, for recognition. */
const PREFIX_LENGTH = 10;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`);
const MANAGEMENT_KEY_PATTERN = new RegExp(`^${MANAGEMENT_KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`);

/**
 * A new key: `gw-` (or `gw-mgmt-`) and 48 base62 characters from a CSPRNG (about 285 bits).
 * Bytes of 248 and above are rejected rather than reduced modulo 62, so every
 * character is equally likely.
 */
export function generateKeySecret(random: RandomBytes = cryptoRandom, prefix: string = KEY_PREFIX): string {
  let out = prefix;
  while (out.length < prefix.length + SECRET_LENGTH) {
    for (const byte of random(SECRET_LENGTH)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === prefix.length + SECRET_LENGTH) break;
    }
  }
  return out;
}

/** Keys are stored only as this SHA-256 digest; a bearer token is found by hashing it the same way. */
export const hashKey = sha256Hex;

/** The start of the secret the list shows: the kind's prefix and a few characters more. */
export const keyPrefix = (secret: string): string =>
  secret.slice(0, PREFIX_LENGTH + (secret.startsWith(MANAGEMENT_KEY_PREFIX) ? MANAGEMENT_KEY_PREFIX.length - KEY_PREFIX.length : 0));

/** Cheap shape check, so that malformed tokens are refused without a database lookup. */
export const looksLikeKey = (token: string): boolean => KEY_PATTERN.test(token);
export const looksLikeManagementKey = (token: string): boolean => MANAGEMENT_KEY_PATTERN.test(token);

type KeyStatus = "active" | "revoked" | "expired";

/** The spec's derived status: revoked if revoked, else expired once past expiry, else active. */
export function keyStatus(key: { revokedAt: number | null; expiresAt: number | null }, now: number): KeyStatus {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt !== null && now > key.expiresAt) return "expired";
  return "active";
}
