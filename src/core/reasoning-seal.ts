// The seal of reasoning the gateway writes for a translated model (a Responses `reasoning` item's
// `encrypted_content`, a Messages `thinking` block's `signature`): the reasoning text encrypted
// and authenticated with the deployment's secret key (AES-256-GCM), so that any instance of the
// deployment reads it back, no client can forge one, and it does not show the text. A stateless
// agent sends it back with the conversation, and the text is restored as the assistant message's
// `reasoning_content` where the provider wants it (DeepSeek's thinking mode: a tool-call turn
// without it is a 400).
import { createCipheriv, createDecipheriv } from "node:crypto";
import { cryptoRandom, type RandomBytes } from "./crypto.ts";

export interface ReasoningSeal {
  /** The sealed text; null when the deployment has no secret key (nothing is sealed then). */
  seal(text: string): string | null;
  /** The text of a seal this deployment made; null for anything else (forged, foreign, damaged, not a seal). */
  open(sealed: unknown): string | null;
}

/** A deployment without a secret key: it seals nothing and opens nothing. */
export const NO_SEAL: ReasoningSeal = { seal: () => null, open: () => null };

// A versioned prefix, so that a later format (or key rotation) can be told apart.
const PREFIX = "gwr1.";
const NONCE_BYTES = 12;

/** Whether a value is shaped as this gateway's seal (not whether it opens): a provider must not be sent one. */
export const sealedByGateway = (value: unknown): boolean => typeof value === "string" && value.startsWith(PREFIX);
const TAG_BYTES = 16;
// Bound to its use: a seal made for something else under the same key does not open here.
const CONTEXT = Buffer.from("gateway reasoning v1");
// The longest seal worth trying: the request schemas bound reasoning text far below this.
const MAX_SEALED_LENGTH = 4 * 1024 * 1024;

/** Seals under `key` (32 bytes). */
export function reasoningSeal(key: Uint8Array, random: RandomBytes = cryptoRandom): ReasoningSeal {
  if (key.length !== 32) throw new Error("the reasoning seal needs a 32-byte key");
  return {
    seal(text) {
      const nonce = random(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, nonce).setAAD(CONTEXT);
      const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
      return PREFIX + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
    },
    open(sealed) {
      if (typeof sealed !== "string" || !sealed.startsWith(PREFIX) || sealed.length > MAX_SEALED_LENGTH) return null;
      const bytes = Buffer.from(sealed.slice(PREFIX.length), "base64url");
      if (bytes.length < NONCE_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, NONCE_BYTES)).setAAD(CONTEXT);
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}
