// The seal of reasoning the gateway writes for a translated model (a Responses `reasoning` item's
// `encrypted_content`, a Messages `thinking` block's `signature`): the reasoning text encrypted
// and authenticated with the deployment's secret key (AES-256-GCM, core/sealed-box.ts), so that
// any instance of the deployment reads it back, no client can forge one, and it does not show the
// text. A stateless agent sends it back with the conversation, and the text is restored as the
// assistant message's `reasoning_content` where the provider wants it (DeepSeek's thinking mode:
// a tool-call turn without it is a 400).
import { cryptoRandom, type RandomBytes } from "./crypto.ts";
import { sealedBox } from "./sealed-box.ts";

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

/** Whether a value is shaped as this gateway's seal (not whether it opens): a provider must not be sent one. */
export const sealedByGateway = (value: unknown): boolean => typeof value === "string" && value.startsWith(PREFIX);
// Bound to its use: a seal made for something else under the same key does not open here.
const CONTEXT = "gateway reasoning v1";
// The longest seal worth trying: the request schemas bound reasoning text far below this.
const MAX_SEALED_LENGTH = 4 * 1024 * 1024;

/** Seals under `key` (32 bytes). */
export function reasoningSeal(key: Uint8Array, random: RandomBytes = cryptoRandom): ReasoningSeal {
  if (key.length !== 32) throw new Error("the reasoning seal needs a 32-byte key");
  return sealedBox(key, { prefix: PREFIX, context: CONTEXT, maxLength: MAX_SEALED_LENGTH }, random);
}
