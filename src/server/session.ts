import { Elysia } from "elysia";
import type { Config } from "../config.ts";
import type { AccountSecurityStore } from "../core/accounts/store.ts";
import { hashSessionToken, SESSION_COOKIE, SESSION_TTL_MS, sessionRenewal } from "../core/accounts/session.ts";
import { AppError, MESSAGES } from "../core/errors.ts";
import { managementKeyCaller, type AccountCaller } from "../core/keys/management.ts";
import { looksLikeManagementKey } from "../core/keys/secret.ts";
import type { Account, AccountStore, KeyManagementStore, SessionStore } from "../core/store.ts";
import { bearerToken } from "./bearer.ts";
import { signedInAccount } from "../core/accounts/sign-in.ts";
import { ORG_NOT_FOUND } from "../core/orgs/roles.ts";
import type { OrgStore } from "../core/orgs/store.ts";
import { refuseCrossSiteWrite } from "./csrf.ts";

interface SessionDeps {
  config: Config;
  store: SessionStore & Pick<AccountSecurityStore, "touchSession"> & Pick<AccountStore, "getAccount">
    & Pick<KeyManagementStore, "findManagementKey" | "markKeyUsed"> & Pick<OrgStore, "findMembership">;
  now: () => number;
}

/** What a signed-in request carries: its token's hash and the account (null when its row is gone). */
export interface Session {
  tokenHash: string;
  account: Account | null;
}

/** The session token in the request's Cookie header, if any. */
export function sessionToken(request: Request): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

function cookieAttributes(config: Pick<Config, "basePath" | "publicUrl">): string {
  // HttpOnly keeps the token from page scripts; Lax keeps it off cross-site subrequests and
  // form posts; Secure whenever the service is reached over https.
  const secure = new URL(config.publicUrl).protocol === "https:" ? "; Secure" : "";
  return `Path=${config.basePath || "/"}; HttpOnly; SameSite=Lax${secure}`;
}

/** `Set-Cookie` for a new (or newly extended) session. */
export const sessionCookie = (token: string, config: Pick<Config, "basePath" | "publicUrl">, now: number): string =>
  `${SESSION_COOKIE}=${token}; ${cookieAttributes(config)}; Max-Age=${SESSION_TTL_MS / 1000}; Expires=${new Date(now + SESSION_TTL_MS).toUTCString()}`;

/** `Set-Cookie` that removes the session cookie. */
export const clearedSessionCookie = (config: Pick<Config, "basePath" | "publicUrl">): string =>
  `${SESSION_COOKIE}=; ${cookieAttributes(config)}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;

/**
 * Session sign-in for the account endpoints: resolves the `gw_session` cookie into `session`,
 * or answers 401 `Unauthorized`; cross-site writes are refused first (csrf.ts). Routes turn
 * the session into their account with `signedInAccount` (core), which knows each endpoint's 404.
 * A session in use slides: in the last half of its life it is extended, and the cookie with it.
 */
export const sessionPlugin = (deps: SessionDeps) =>
  new Elysia({ name: "session" }).resolve({ as: "scoped" }, async ({ request, set }): Promise<{ session: Session }> => ({
    session: await signedInSession(deps, request, set),
  }));

async function signedInSession({ config, store, now }: SessionDeps, request: Request, set: { headers: Record<string, unknown> }): Promise<Session> {
  refuseCrossSiteWrite(request, config);
  const token = sessionToken(request);
  const at = now();
  const tokenHash = token === null ? null : hashSessionToken(token);
  const found = tokenHash === null ? null : await store.findSession(tokenHash, at);
  if (token === null || tokenHash === null || found === null) throw new AppError("authentication_error", MESSAGES.unauthorized);
  const renewal = sessionRenewal(found, at);
  if (renewal) {
    await store.touchSession(tokenHash, renewal.lastSeenAt, renewal.expiresAt);
    if (renewal.extended) set.headers["set-cookie"] = sessionCookie(token, config, at);
  }
  return { tokenHash, account: found.account };
}

/**
 * The account endpoints a script may call: `Authorization: Bearer gw-mgmt-…` stands in for the
 * session there (no cookie, so no Origin check: a browser cannot be made to send it), and
 * anything else is the session's. Sign-in, password, 2FA and session routes use
 * `sessionPlugin`, where a management key is no sign-in at all.
 */
export const accountCallerPlugin = (deps: SessionDeps) =>
  new Elysia({ name: "account-caller" }).resolve({ as: "scoped" }, async ({ request, set }): Promise<{ session: AccountCaller }> => {
    const token = bearerToken(request.headers.get("authorization"));
    if (token !== undefined && looksLikeManagementKey(token)) return { session: await managementKeyCaller(deps.store, token, deps.now()) };
    const { account } = await signedInSession(deps, request, set);
    const orgId = new URL(request.url).searchParams.get("org");
    return { session: orgId ? await actingFor(deps, orgId, { account, managementKey: null }) : { account, managementKey: null } };
  });

/**
 * `?org={id}`: the signed-in person acts for an organization it belongs to, with its role
 * there; an organization it does not belong to is answered as one that does not exist.
 */
async function actingFor(deps: SessionDeps, orgId: string, person: AccountCaller): Promise<AccountCaller> {
  const { id: personId, email: personEmail } = signedInAccount(person, MESSAGES.accountNotFound);
  const membership = await deps.store.findMembership(orgId, personId);
  if (!membership) throw new AppError("not_found", ORG_NOT_FOUND);
  const { org, role } = membership;
  return { account: await deps.store.getAccount(org.id), managementKey: null, org: { id: org.id, name: org.name, role, personId, personEmail } };
}
