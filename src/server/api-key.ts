import { AppError } from "../core/errors.ts";
import { keyRefusal, type Caller } from "../core/keys/auth.ts";
import { accessRefusal } from "../core/keys/allowlist.ts";
import { hashKey, looksLikeKey, looksLikeManagementKey } from "../core/keys/secret.ts";
import type { KeyStore } from "../core/store.ts";
import { bearerToken } from "./bearer.ts";

const MISSING_BEARER = "Missing bearer token: send Authorization: Bearer <API key>";

/**
 * The hash of the API key in `Authorization: Bearer gw-…`, or the spec's 401 for a missing or
 * malformed token, found without a database lookup. The token is looked up by this SHA-256
 * hash; it is never compared or stored in plaintext.
 */
export function presentedKeyHash(authorization: string | null, missing = MISSING_BEARER): string {
  const token = bearerToken(authorization);
  if (!token) throw new AppError("authentication_error", missing);
  if (looksLikeManagementKey(token)) {
    throw new AppError("authentication_error", "A management key cannot call the API: send an API key (gw-…) instead");
  }
  if (!looksLikeKey(token)) throw new AppError("authentication_error", "Invalid API key");
  return hashKey(token);
}

/**
 * Resolves `Authorization: Bearer gw-…` to the key and its account, or throws the spec's 401
 * (missing, malformed, unknown, revoked or expired key) or 403 (banned or deleted account).
 */
export async function authenticateApiKey(
  store: KeyStore,
  authorization: string | null,
  now: number,
  /** What the key is used for, judged by its allowlists: the model, when there is one, and the client's address. */
  use: { model: string | null; clientIp(): string },
  /** The 401's words when no key was sent, in the door's terms. */
  missing?: string,
): Promise<Caller> {
  const found = await store.findKeyByHash(presentedKeyHash(authorization, missing));
  const refusal = keyRefusal(found, now) ?? accessRefusal((found as Caller).key, use.model, use.clientIp);
  if (refusal) throw refusal;
  return found as Caller;
}
