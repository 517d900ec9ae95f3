import { accountState } from "./accounts.ts";
import { hashSessionToken, newSessionToken, SESSION_TTL_MS } from "./auth-session.ts";
import { AppError, MESSAGES } from "./errors.ts";
import type { Nanos } from "./money.ts";
import type { Account, FreeCreditOffer, RateLimitStore, SessionStore, UserStore } from "./store.ts";

const PASSWORD_MIN_LENGTH = 8;
// argon2 takes any length, but an unbounded password is an unbounded amount of work per request.
const PASSWORD_MAX_LENGTH = 1024;
const EMAIL_MAX_LENGTH = 254;
// No control characters: an address holding one is no address, and Postgres cannot store a NUL.
const EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@.\p{Cc}]+(\.[^\s@.\p{Cc}]+)+$/u;
const CONTROL_CHARACTER = /\p{Cc}/u;

/** Sign-in attempts allowed per IP and, separately, per e-mail in a rolling window. */
const LOGIN_ATTEMPTS = { limit: 10, windowMs: 15 * 60 * 1000 };
const DAY_MS = 24 * 60 * 60 * 1000;

const invalid = (message: string) => new AppError("invalid_request_error", message);

/** How e-mails are stored and looked up: trimmed and lower-cased. */
const accountEmail = (raw: string): string => raw.trim().toLowerCase();

/** A new account's e-mail, normalized, or a 400 saying why it is not one. */
export function parseEmail(value: unknown): string {
  if (typeof value !== "string") throw invalid("email is required and must be a string");
  const email = accountEmail(value);
  if (email.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(email)) throw invalid("email must be a valid e-mail address");
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

export const hashPassword = (password: string): Promise<string> => Bun.password.hash(password, { algorithm: "argon2id" });

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

interface SignInContext {
  ip: string;
  now: number;
}

interface FreeCreditPolicy {
  amount: Nanos;
  perIpPerDay: number;
}

const startSession = async (store: SessionStore, accountId: string, now: number): Promise<string> => {
  const token = newSessionToken();
  await store.createSession({ tokenHash: hashSessionToken(token), accountId, now, expiresAt: now + SESSION_TTL_MS });
  return token;
};

/**
 * Creates an account from `{email, password}` and signs it in. The free credits go to the
 * first account of a normalized e-mail, for at most `perIpPerDay` sign-ups per IP and UTC day.
 */
export async function signUp(
  store: UserStore & SessionStore,
  body: Record<string, unknown>,
  policy: FreeCreditPolicy,
  ctx: SignInContext,
): Promise<{ account: Account; sessionToken: string; freeCreditsGranted: boolean }> {
  const email = parseEmail(body.email);
  const password = parsePassword(body.password);
  const freeCredits: FreeCreditOffer | null = policy.amount > 0n
    ? {
        amount: policy.amount,
        identity: freeCreditIdentity(email),
        ipScope: `free-credits:ip:${ctx.ip}`,
        perIpPerDay: policy.perIpPerDay,
        dayStart: ctx.now - (ctx.now % DAY_MS),
      }
    : null;
  const created = await store.signUp({ email, passwordHash: await hashPassword(password), freeCredits, now: ctx.now });
  if (!created) throw new AppError("conflict", MESSAGES.emailTaken);
  const sessionToken = await startSession(store, created.account.id, ctx.now);
  return { ...created, sessionToken };
}

/**
 * Signs in with `{email, password}`. Attempts are counted per IP and per e-mail before the
 * password is checked, so guessing is bounded and cannot be used to burn CPU on argon2.
 */
export async function logIn(
  store: UserStore & SessionStore & RateLimitStore,
  body: Record<string, unknown>,
  ctx: SignInContext,
): Promise<{ account: Account; sessionToken: string }> {
  if (typeof body.email !== "string" || typeof body.password !== "string") {
    throw invalid("email and password are required and must be strings");
  }
  const email = accountEmail(body.email);
  // Sign-up refuses such an address, so no account has one; it is not even counted (Postgres cannot store a NUL).
  if (CONTROL_CHARACTER.test(email)) throw new AppError("authentication_error", MESSAGES.invalidCredentials);
  for (const scope of [`login:ip:${ctx.ip}`, `login:email:${email}`]) {
    const decision = await store.hitRateLimit({ scope, ...LOGIN_ATTEMPTS, now: ctx.now });
    if (!decision.allowed) {
      throw new AppError("rate_limit_error", MESSAGES.signInThrottled, { retryAfterSeconds: decision.retryAfterSeconds });
    }
  }
  const found = await store.findCredentials(email);
  if (!(await passwordMatches(body.password, found?.passwordHash ?? null)) || !found) {
    throw new AppError("authentication_error", MESSAGES.invalidCredentials);
  }
  // Told only to someone who knows the password.
  if (accountState(found.account) !== "active") throw new AppError("permission_error", MESSAGES.forbidden);
  return { account: found.account, sessionToken: await startSession(store, found.account.id, ctx.now) };
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
