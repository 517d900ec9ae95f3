import { AppError } from "../core/errors.ts";
import { hashKey, keyStatus, looksLikeKey } from "../core/keys.ts";
import type { ApiKey, KeyHolder, KeyStore } from "../core/store.ts";
import { bearerToken } from "./bearer.ts";

interface Caller {
  key: ApiKey;
  account: KeyHolder;
}

const invalid = () => new AppError("authentication_error", "Invalid API key");

/**
 * Resolves `Authorization: Bearer gw-…` to the key and its account, or throws the spec's 401
 * (missing, malformed, unknown, revoked or expired key) or 403 (banned or deleted account).
 * The token is looked up by its SHA-256 hash; it is never compared or stored in plaintext.
 */
export async function authenticateApiKey(store: KeyStore, authorization: string | null, now: number): Promise<Caller> {
  const token = bearerToken(authorization);
  if (!token) {
    throw new AppError("authentication_error", "Missing bearer token: send Authorization: Bearer <API key>");
  }
  if (!looksLikeKey(token)) throw invalid();
  const found = await store.findKeyByHash(hashKey(token));
  if (!found) throw invalid();
  const status = keyStatus(found.key, now);
  if (status === "revoked") throw new AppError("authentication_error", "API key has been revoked");
  if (status === "expired") throw new AppError("authentication_error", "API key has expired");
  if (found.account.deletedAt !== null) throw new AppError("permission_error", "Account has been deleted");
  if (found.account.bannedAt !== null) throw new AppError("permission_error", "Account has been banned");
  return found;
}
