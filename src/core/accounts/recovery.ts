import { resetMail } from "./mail.ts";
import type { AccountSecurityStore } from "./store.ts";
import {
  freeCreditOffer, hashPassword, HOUR_MS, parseEmail, parsePassword, throttle, verificationLink,
  type FreeCreditPolicy, type LinkPolicy, type SignInContext,
} from "./sign-in.ts";
import { hashSessionToken, newSessionToken } from "./session.ts";
import { AppError, MESSAGES } from "../errors.ts";
import type { Account, RateLimitStore, UserStore } from "../store.ts";

// E-mail verification and password recovery: the flows behind the links the gateway e-mails.

/** How long a reset link works. */
export const RESET_LINK_TTL_MS = HOUR_MS;
/** Reset e-mails one address may receive per hour, so that forgot cannot be used to flood an inbox. */
const RESETS_PER_ADDRESS_PER_HOUR = 3;
/** Verification e-mails one account may ask for again per hour. */
const RESENDS_PER_HOUR = { limit: 5, windowMs: HOUR_MS };

/** A link token from a request body: a string of the shape the gateway issues, else no token at all. */
export function linkToken(value: unknown): string {
  // Issued tokens are 43 base64url characters; anything else cannot match and is not looked up.
  if (typeof value !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(value)) throw new AppError("invalid_request_error", MESSAGES.invalidLink);
  return value;
}

/** Uses a verification link: the e-mail is verified and, once per e-mail and within the per-IP bound, the free credits are granted. */
export async function verifyEmail(
  store: AccountSecurityStore,
  body: Record<string, unknown>,
  policy: FreeCreditPolicy,
  ctx: Pick<SignInContext, "ip" | "now">,
): Promise<{ account: Account; freeCreditsGranted: boolean }> {
  const verified = await store.verifyEmail({
    tokenHash: hashSessionToken(linkToken(body.token)),
    offer: (account) => freeCreditOffer(account, policy, ctx.now),
    ip: ctx.ip,
    now: ctx.now,
  });
  if (!verified) throw new AppError("invalid_request_error", MESSAGES.invalidLink);
  return verified;
}

/** E-mails a new verification link to a signed-in account that is not verified yet. */
export async function resendVerification(store: AccountSecurityStore & RateLimitStore, account: Account, dashboardUrl: string, now: number) {
  if (account.emailVerifiedAt !== null) return;
  await throttle(store, `verify-resend:${account.id}`, RESENDS_PER_HOUR, now, MESSAGES.tooManyRequests);
  await store.queueVerification(account.id, verificationLink(dashboardUrl, now), now);
}

/**
 * `POST /auth/password/forgot`: e-mails a reset link when the address has an account. The
 * answer is the same either way, and both ways do the same work (a token is made, one
 * transaction runs), so that neither the answer nor its timing tells whether the address exists.
 */
export async function forgotPassword(
  store: AccountSecurityStore & RateLimitStore,
  body: Record<string, unknown>,
  links: LinkPolicy,
  ctx: Pick<SignInContext, "ip" | "now">,
): Promise<void> {
  await throttle(store, `forgot:ip:${ctx.ip}`, { limit: links.perIpPerHour, windowMs: HOUR_MS }, ctx.now, MESSAGES.tooManyRequests);
  const email = parseEmail(body.email);
  const token = newSessionToken();
  await store.queuePasswordReset({
    email,
    link: { tokenHash: hashSessionToken(token), expiresAt: ctx.now + RESET_LINK_TTL_MS, mail: resetMail(links.dashboardUrl, token) },
    perHour: RESETS_PER_ADDRESS_PER_HOUR,
    now: ctx.now,
  });
}

/** `POST /auth/password/reset`: sets the password from a reset link and ends every session of the account. */
export async function resetPassword(store: AccountSecurityStore, body: Record<string, unknown>, ctx: Pick<SignInContext, "ip" | "now">) {
  const tokenHash = hashSessionToken(linkToken(body.token));
  const passwordHash = await hashPassword(parsePassword(body.password));
  const reset = await store.resetPassword({ tokenHash, passwordHash, ip: ctx.ip, now: ctx.now });
  if (!reset) throw new AppError("invalid_request_error", MESSAGES.invalidLink);
}

/**
 * `POST /auth/password/change`: checks the current password (attempts limited like sign-in),
 * sets the new one and ends every other session of the account.
 */
export async function changePassword(
  store: AccountSecurityStore & UserStore & RateLimitStore,
  account: Account,
  body: Record<string, unknown>,
  ctx: Pick<SignInContext, "ip" | "now"> & { sessionHash: string },
): Promise<void> {
  if (typeof body.currentPassword !== "string") throw new AppError("invalid_request_error", "currentPassword is required and must be a string");
  const newPassword = parsePassword(body.newPassword);
  await throttle(store, `password-change:${account.id}`, { limit: 10, windowMs: 15 * 60 * 1000 }, ctx.now, MESSAGES.signInThrottled);
  const found = await store.findCredentials(account.email);
  const matches = found?.passwordHash ? await Bun.password.verify(body.currentPassword, found.passwordHash) : false;
  if (!matches) throw new AppError("invalid_request_error", MESSAGES.wrongPassword);
  await store.changePassword({
    accountId: account.id, passwordHash: await hashPassword(newPassword), keep: ctx.sessionHash, ip: ctx.ip, now: ctx.now,
  });
}
