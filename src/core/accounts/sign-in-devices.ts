import { hashSessionToken, newSessionToken } from "./session.ts";

// Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a browser
// that signs in to an account is given a random long-lived token, `gw_device`, stored as its
// SHA-256 with the account. Failed sign-ins that carry a valid one for the account are counted
// against that device alone (sign-in-limits.ts); every other attempt shares the account's
// untrusted pool and its address's counters. So guessing from elsewhere, however much, never
// locks the owner out of a browser it has signed in on, and a stolen cookie is worth nothing
// without the password (and the second factor).

/** The device cookie's name. */
export const DEVICE_COOKIE = "gw_device";
/** How long a device stays known after it last signed in. */
export const DEVICE_TTL_MS = 365 * 24 * 60 * 60 * 1000;

export interface SignInDeviceStore {
  /** The account a device token (by its hash) was issued to, while unexpired; null otherwise. */
  findSignInDevice(tokenHash: string, now: number): Promise<string | null>;
  /** Remembers a device token's hash for the account until `expiresAt` (again: extends it), and forgets its expired ones. */
  rememberSignInDevice(input: { tokenHash: string; accountId: string; now: number; expiresAt: number }): Promise<void>;
}

/**
 * The hash of `token` when it is a device cookie issued to `accountId` and still valid; null for
 * no cookie, an unknown or expired one, or one of another account (it helps only its own).
 */
export async function trustedDevice(store: SignInDeviceStore, token: string | null | undefined, accountId: string | undefined, now: number) {
  if (!token || accountId === undefined) return null;
  const tokenHash = hashSessionToken(token);
  return (await store.findSignInDevice(tokenHash, now)) === accountId ? tokenHash : null;
}

/**
 * After a successful sign-in: the device's cookie value to set, a new token when the request
 * carried no valid one for the account, else the same one, its life extended.
 */
export async function rememberDevice(store: SignInDeviceStore, accountId: string, current: string | null | undefined, trusted: boolean, now: number) {
  const token = trusted && current ? current : newSessionToken();
  await store.rememberSignInDevice({ tokenHash: hashSessionToken(token), accountId, now, expiresAt: now + DEVICE_TTL_MS });
  return token;
}
