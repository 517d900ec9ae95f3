// AES-256-GCM under the deployment's secret key, the one cipher behind every value the gateway
// must read back (the reasoning seal, the secrets kept at rest). Each use has its own prefix and
// its own context, bound as associated data, so that a value sealed for one use never opens as
// another under the same key; the nonce is random per value, so equal texts seal differently.
import { createCipheriv, createDecipheriv } from "node:crypto";
import { cryptoRandom, type RandomBytes } from "./crypto.ts";

export interface SealedBox {
  /** `text`, encrypted and authenticated: the prefix, then nonce, ciphertext and tag as base64url. */
  seal(text: string): string;
  /** The text of a value this box sealed; null for anything else (forged, another key or use, damaged, not sealed). */
  open(sealed: unknown): string | null;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A box under `key` (32 bytes); values start with `prefix`, longer ones than `maxLength` are not tried. */
export function sealedBox(
  key: Uint8Array,
  use: { prefix: string; context: string; maxLength: number },
  random: RandomBytes = cryptoRandom,
): SealedBox {
  if (key.length !== 32) throw new Error("AES-256-GCM needs a 32-byte key");
  const context = Buffer.from(use.context);
  return {
    seal(text) {
      const nonce = random(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, nonce).setAAD(context);
      const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
      return use.prefix + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
    },
    open(sealed) {
      if (typeof sealed !== "string" || !sealed.startsWith(use.prefix) || sealed.length > use.maxLength) return null;
      const bytes = Buffer.from(sealed.slice(use.prefix.length), "base64url");
      if (bytes.length < NONCE_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, NONCE_BYTES)).setAAD(context);
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}
