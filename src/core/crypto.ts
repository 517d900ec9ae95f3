// The one source of randomness and the one hash for secrets (API keys, session and link
// tokens, recovery codes): a CSPRNG, and SHA-256, so that a leaked table cannot be replayed.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** Random bytes; functions that make secrets take one, so tests can pass a fixed source. */
export type RandomBytes = (length: number) => Uint8Array;

export const cryptoRandom: RandomBytes = (length) => crypto.getRandomValues(new Uint8Array(length));

/** SHA-256 of `text` as lowercase hex: what is stored in place of a secret. */
export const sha256Hex = (text: string): string => createHash("sha256").update(text).digest("hex");

/** HMAC-SHA256 of `text` under `key`, as lowercase hex: how webhook events are signed. */
export const hmacSha256Hex = (key: string, text: string): string => createHmac("sha256", key).update(text).digest("hex");

/**
 * Whether `candidate` hashes to `expectedHex`, compared in constant time: both digests have one
 * length, so the comparison takes the same time whatever was sent.
 */
export function matchesDigest(candidate: string, expectedHex: string): boolean {
  const given = Buffer.from(sha256Hex(candidate), "hex");
  const expected = Buffer.from(expectedHex, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
