// Whether an API key found by its hash may make a request: the spec's 401 and 403 for the chat
// path, decided here once for the front door's lookup and for the admission that finds the key
// itself (src/core/chat/pipeline.ts).
import { AppError } from "../errors.ts";
import { keyStatus } from "./secret.ts";
import type { Account, ApiKey } from "../entities.ts";

/** The account behind an API key, as far as authenticating a request needs it. */
export type KeyHolder = Pick<Account, "id" | "bannedAt" | "deletedAt">;

/** The key a request is made with, and what authentication needs of its account. */
export interface Caller {
  key: ApiKey;
  account: KeyHolder;
}

/** The 401 (unknown, revoked or expired key) or 403 (deleted or banned account) a request with this key gets; null when it may go on. */
export function keyRefusal(found: Caller | null, now: number): AppError | null {
  // A management key's hash is never presented here (its shape is refused first), but a key
  // that is not an API key must not pass whatever way it came.
  if (!found || found.key.kind !== "api") return new AppError("authentication_error", "Invalid API key");
  const status = keyStatus(found.key, now);
  if (status === "revoked") return new AppError("authentication_error", "API key has been revoked");
  if (status === "expired") return new AppError("authentication_error", "API key has expired");
  if (found.account.deletedAt !== null) return new AppError("permission_error", "Account has been deleted");
  if (found.account.bannedAt !== null) return new AppError("permission_error", "Account has been banned");
  return null;
}
