// Secrets the gateway keeps and must read back in clear: an account's TOTP secret (to check a
// code) and its webhook signing secret (to sign an event). They cannot be hashed, so they are
// encrypted with the deployment's secret key (AES-256-GCM, core/sealed-box.ts), each kind under a
// context of its own: a copied database or backup, without the key, yields none of them.
import { cryptoRandom, type RandomBytes } from "./crypto.ts";
import { AppError } from "./errors.ts";
import { sealedBox, type SealedBox } from "./sealed-box.ts";

export type SecretKind = "totp" | "webhook";

export interface StoredSecrets {
  /** Whether this deployment has a key (without one, nothing new can be stored). */
  readonly keyed: boolean;
  /** What the database keeps for `secret`; throws when the deployment has no key. */
  seal(kind: SecretKind, secret: string): string;
  /** The secret the database keeps as `stored`: opened, or as is when it is still in clear (a database from before). */
  open(kind: SecretKind, stored: string): string;
}

// A versioned prefix: it tells an encrypted value from one still in clear (neither a base32 TOTP
// secret nor `whsec_` can start so), and a later format from this one.
const PREFIX = "gws1.";
const CONTEXTS: Record<SecretKind, string> = { totp: "gateway totp secret v1", webhook: "gateway webhook secret v1" };
// Far above any secret kept here (a TOTP secret is 32 characters, a signing secret 70).
const MAX_SEALED_LENGTH = 4096;

/** Whether a stored value is encrypted (rather than still in clear). */
export const isSealedSecret = (stored: string): boolean => stored.startsWith(PREFIX);

export const NO_KEY_MESSAGE =
  "This gateway has no secret key to encrypt the secret with: its operator must set SECRET_KEY (or SECRET_KEY_FILE)";

/** Secrets kept under `key` (32 bytes), or, without one, a store that refuses new secrets and reads only clear ones. */
export function storedSecrets(key: Uint8Array | null, random: RandomBytes = cryptoRandom): StoredSecrets {
  const boxes = key ? ({
    totp: sealedBox(key, { prefix: PREFIX, context: CONTEXTS.totp, maxLength: MAX_SEALED_LENGTH }, random),
    webhook: sealedBox(key, { prefix: PREFIX, context: CONTEXTS.webhook, maxLength: MAX_SEALED_LENGTH }, random),
  } satisfies Record<SecretKind, SealedBox>) : null;
  return {
    keyed: boxes !== null,
    seal(kind, secret) {
      if (!boxes) throw new AppError("unavailable", NO_KEY_MESSAGE);
      return boxes[kind].seal(secret);
    },
    open(kind, stored) {
      if (!isSealedSecret(stored)) return stored;
      if (!boxes) throw new AppError("unavailable", NO_KEY_MESSAGE);
      const secret = boxes[kind].open(stored);
      // Another key than the one that sealed it (a lost or changed SECRET_KEY), or a damaged value.
      // Said as what it is, not a 500: the operator restores the key, or resets the secret.
      if (secret === null) throw new AppError("unavailable", `A stored ${kind === "totp" ? "two-factor" : "webhook signing"} secret does not open with this gateway's SECRET_KEY: its operator must restore the key that sealed it, or reset the secret`);
      return secret;
    },
  };
}
