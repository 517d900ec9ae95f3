import { verificationMail } from "./mail.ts";
import { hashIsCurrent, hashPassword } from "./password-hash.ts";
import type { AccountSecurityStore, Client } from "./store.ts";
import { accountState } from "./state.ts";
import type { AuditStore } from "./audit.ts";
import { hashSessionToken, newSessionToken, SESSION_TTL_MS } from "./session.ts";
import { AppError, MESSAGES } from "../errors.ts";
import type { Nanos } from "../money.ts";
import { checkSecondFactor } from "./totp.ts";
import { lookAlikeProblem } from "./look-alike.ts";
import { emailSkeleton, freeCreditSkeleton } from "./email-skeleton.ts";
import { rememberDevice, trustedDevice, type SignInDeviceStore } from "./sign-in-devices.ts";
import { ATTEMPTS_PER_IP, CODE_FAILURES, failureGuard, THROTTLED, PASSWORD_FAILURES, type FailureGuard } from "./sign-in-limits.ts";
import type { Account, FreeCreditOffer, RateLimitStore, SessionStore, UserStore } from "../store.ts";

const PASSWORD_MIN_LENGTH = 10;
// argon2 takes any length, but an unbounded password is an unbounded amount of work per request.
const PASSWORD_MAX_LENGTH = 200;
const EMAIL_MAX_LENGTH = 254;
// No control characters: an address holding one is no address, and Postgres cannot store a NUL.
const EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@.\p{Cc}]+(\.[^\s@.\p{Cc}]+)+$/u;
const CONTROL_CHARACTER = /\p{Cc}/u;

/** The window of the per-IP limits on sign-ups and reset requests (AUTH_PER_IP_PER_HOUR, default 10). */
export const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a verification link works. */
export const VERIFY_LINK_TTL_MS = DAY_MS;

const invalid = (message: string) => new AppError("invalid_request_error", message);

/** How e-mails are stored and looked up: trimmed and lower-cased. */
const accountEmail = (raw: string): string => raw.trim().toLowerCase();

/** An e-mail, normalized, or a 400 saying why it is not one; for looking one up, see `parseNewEmail` for making one. */
export function parseEmail(value: unknown): string {
  if (typeof value !== "string") throw invalid("email is required and must be a string");
  const email = accountEmail(value);
  if (email.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(email)) throw invalid("email must be a valid e-mail address");
  return email;
}

/**
 * The e-mail of an account being made (sign-up, the CLI's `users create`): as `parseEmail`,
 * and not one that could pass for another account's (look-alike.ts).
 */
export function parseNewEmail(value: unknown): string {
  const email = parseEmail(value);
  const problem = lookAlikeProblem(email);
  if (problem !== null) throw invalid(problem);
  return email;
}

/** A new password, or a 400 saying why it is refused. */
export function parsePassword(value: unknown): string {
  if (typeof value !== "string") throw invalid("password is required and must be a string");
  if (value.length < PASSWORD_MIN_LENGTH) throw invalid(`password must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (value.length > PASSWORD_MAX_LENGTH) throw invalid(`password must be at most ${PASSWORD_MAX_LENGTH} characters`);
  return value;
}

const GMAIL_DOMAINS = new Set(["gmail.com", "googlemail.com"]);

/**
 * Who the free credits belong to. Gmail delivers a.b+promo@gmail.com and ab@googlemail.com to
 * the same inbox, so they count as one e-mail; other domains are taken as written.
 */
export function freeCreditIdentity(email: string): string {
  const at = email.lastIndexOf("@");
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (!GMAIL_DOMAINS.has(domain)) return email;
  return `${(local.split("+")[0] ?? "").replaceAll(".", "")}@gmail.com`;
}

export { hashPassword };

// Checked against when the e-mail is unknown, so that a miss costs as long as a wrong password
// and response times do not reveal which e-mails have accounts.
let decoyHash: Promise<string> | undefined;
const decoy = () => (decoyHash ??= hashPassword("decoy password, never matches"));

async function passwordMatches(password: string, hash: string | null): Promise<boolean> {
  if (hash === null) {
    await Bun.password.verify(password, await decoy());
    return false;
  }
  return Bun.password.verify(password, hash);
}

export interface SignInContext extends Client {
  now: number;
  /** The request's device cookie (sign-in-devices.ts), if it carried one. */
  deviceToken?: string | null;
}

/** A new session's token, and the device cookie's value to set (sign-in-devices.ts). */
export interface SignedIn {
  account: Account;
  sessionToken: string;
  deviceToken: string;
}

/** Where the account e-mails' links point, and how many sign-ups or reset requests one IP may make per hour. */
export interface LinkPolicy {
  dashboardUrl: string;
  perIpPerHour: number;
}

export interface FreeCreditPolicy {
  amount: Nanos;
  perIpPerDay: number;
}

/** Starts a session for the account and returns its token, which only the cookie carries. */
export const startSession = async (store: SessionStore, accountId: string, ctx: SignInContext): Promise<string> => {
  const token = newSessionToken();
  await store.createSession({
    tokenHash: hashSessionToken(token), accountId, now: ctx.now, expiresAt: ctx.now + SESSION_TTL_MS,
    ip: ctx.ip, userAgent: ctx.userAgent,
  });
  return token;
};

/** Counts an event against a per-IP (or other) limit, or answers 429 with `message` (given the wait, when a function). */
export async function throttle(
  store: RateLimitStore, scope: string, limit: { limit: number; windowMs: number }, now: number, message: string | ((retryAfterSeconds: number) => string),
) {
  const decision = await store.hitRateLimit({ scope, ...limit, now });
  if (decision.allowed) return;
  const text = typeof message === "string" ? message : message(decision.retryAfterSeconds);
  throw new AppError("rate_limit_error", text, { retryAfterSeconds: decision.retryAfterSeconds });
}

/** A verification link for `dashboardUrl`: the token goes into the e-mail only, its hash into the store. */
export function verificationLink(dashboardUrl: string, now: number) {
  const token = newSessionToken();
  return { tokenHash: hashSessionToken(token), expiresAt: now + VERIFY_LINK_TTL_MS, mail: verificationMail(dashboardUrl, token) };
}

/**
 * Creates an unverified account from `{email, password}`, e-mails its verification link and
 * signs it in. The free credits wait for the verification (verification.ts). Sign-ups are
 * limited per IP, so that addresses cannot be invented in bulk. An address whose look-alike key
 * (email-skeleton.ts) an account holds is answered as a taken one: 409, nothing more.
 */
export async function signUp(
  store: AccountSecurityStore & SessionStore & RateLimitStore & SignInDeviceStore,
  body: Record<string, unknown>,
  links: LinkPolicy,
  ctx: SignInContext,
): Promise<SignedIn> {
  const email = parseNewEmail(body.email);
  const password = parsePassword(body.password);
  await throttle(store, `signup:ip:${ctx.ip}`, { limit: links.perIpPerHour, windowMs: HOUR_MS }, ctx.now, MESSAGES.tooManyRequests);
  const account = await store.signUp({
    email, emailSkeleton: emailSkeleton(email), passwordHash: await hashPassword(password), client: ctx, verification: verificationLink(links.dashboardUrl, ctx.now), now: ctx.now,
  });
  if (!account) throw new AppError("conflict", MESSAGES.emailTaken);
  // Signing up signs this browser in: it is the owner's first known device.
  const deviceToken = await rememberDevice(store, account.id, null, false, ctx.now);
  return { account, sessionToken: await startSession(store, account.id, ctx), deviceToken };
}

/** The free-credit offer for a verified account, under `policy`; null when free credits are off. */
export function freeCreditOffer(account: Account, policy: FreeCreditPolicy, now: number): FreeCreditOffer | null {
  if (policy.amount <= 0n) return null;
  return {
    amount: policy.amount,
    identity: freeCreditIdentity(account.email),
    emailSkeleton: freeCreditSkeleton(account.email),
    ipScope: `free-credits:ip:${account.signupIp ?? "unknown"}`,
    perIpPerDay: policy.perIpPerDay,
    dayStart: now - (now % DAY_MS),
  };
}

type LogInStore = UserStore & SessionStore & RateLimitStore & AccountSecurityStore & AuditStore & SignInDeviceStore;

/**
 * Signs in with `{email, password}`, and `code` when the account has two-factor sign-in.
 * Without a device cookie for the account, attempts are counted per IP before the password is
 * checked, so they cannot be used to burn CPU on argon2. Wrong passwords and wrong codes are
 * counted on the device when the request carries a valid device cookie for the account, else
 * per (e-mail, IP), per IP and per e-mail (sign-in-limits.ts): guessing is bounded, and a
 * guesser elsewhere never locks the owner out of a browser it has signed in on.
 */
export async function logIn(store: LogInStore, body: Record<string, unknown>, ctx: SignInContext): Promise<SignedIn> {
  if (typeof body.email !== "string" || typeof body.password !== "string") {
    throw invalid("email and password are required and must be strings");
  }
  const email = accountEmail(body.email);
  // Sign-up refuses such an address, so no account has one; it is not even counted (Postgres cannot store a NUL).
  if (CONTROL_CHARACTER.test(email)) throw new AppError("authentication_error", MESSAGES.invalidCredentials);
  const found = await store.findCredentials(email);
  // Only a cookie issued to this very account is trusted; any other is as none.
  const device = await trustedDevice(store, ctx.deviceToken, found?.account.id, ctx.now);
  if (device === null) await throttle(store, `login:ip:${ctx.ip}`, ATTEMPTS_PER_IP, ctx.now, THROTTLED.work);
  const guesser = { email, ip: ctx.ip, device };
  const passwords = failureGuard(store, "login", PASSWORD_FAILURES, guesser, ctx.now);
  await passwords.check();
  const failed = async (guard: FailureGuard, detail: string, message: string) => {
    await guard.failed();
    if (found) await store.recordAudit({ accountId: found.account.id, type: "login_failed", ip: ctx.ip, detail, at: ctx.now });
    return new AppError("authentication_error", message);
  };
  if (!(await passwordMatches(body.password, found?.passwordHash ?? null)) || !found) {
    throw await failed(passwords, "wrong password", MESSAGES.invalidCredentials);
  }
  // Told only to someone who knows the password.
  if (accountState(found.account) !== "active") throw new AppError("permission_error", MESSAGES.forbidden);
  if (found.account.totpEnabledAt !== null) {
    if (body.code === undefined || body.code === null || body.code === "") throw new AppError("authentication_error", MESSAGES.totpRequired);
    const codes = failureGuard(store, "login-code", CODE_FAILURES, guesser, ctx.now);
    await codes.check();
    if (!(await checkSecondFactor(store, found.account.id, body.code, ctx.now))) {
      throw await failed(codes, "wrong two-factor code", MESSAGES.totpInvalid);
    }
  }
  if (found.passwordHash !== null && !hashIsCurrent(found.passwordHash)) {
    await store.rehashPassword(found.account.id, await hashPassword(body.password));
  }
  // Only now, past the password and the code, does this browser become one the owner uses.
  const deviceToken = await rememberDevice(store, found.account.id, ctx.deviceToken, device !== null, ctx.now);
  await store.recordAudit({ accountId: found.account.id, type: "login", ip: ctx.ip, detail: ctx.userAgent, at: ctx.now });
  return { account: found.account, sessionToken: await startSession(store, found.account.id, ctx), deviceToken };
}

/**
 * The account behind a session, for an endpoint whose "no account" answer is `notFound`:
 * a deleted (or vanished) account is 404, a banned one 403.
 */
export function signedInAccount(session: { account: Account | null }, notFound: string): Account {
  const { account } = session;
  if (account === null || accountState(account) === "deleted") throw new AppError("not_found", notFound);
  if (accountState(account) === "banned") throw new AppError("permission_error", MESSAGES.forbidden);
  return account;
}
