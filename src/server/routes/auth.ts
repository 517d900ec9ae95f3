import { Elysia } from "elysia";
import { logIn, signUp } from "../../core/auth.ts";
import { hashSessionToken } from "../../core/auth-session.ts";
import type { AppDeps } from "../deps.ts";
import { clientIp } from "../client-ip.ts";
import { json, methodNotAllowed, plainError } from "../http.ts";
import { readObjectBody } from "../object-body.ts";
import { assertSameOrigin, clearedSessionCookie, sessionCookie, sessionToken } from "../session.ts";

/** Sign-up, sign-in and sign-out: they set and clear the `gw_session` cookie. */
export const authRoutes = ({ config, store, now }: AppDeps) =>
  new Elysia({ name: "auth" })
    .all("/auth/signup", methodNotAllowed(plainError, "POST"))
    .all("/auth/login", methodNotAllowed(plainError, "POST"))
    .all("/auth/logout", methodNotAllowed(plainError, "POST"))
    // A forged cross-site sign-in would log the victim into the attacker's account.
    .onBeforeHandle(({ request }) => assertSameOrigin(request, config))
    .post(
      "/auth/signup",
      async ({ request, server }) => {
        const at = now();
        const policy = { amount: config.freeCredits, perIpPerDay: config.freeCreditsPerIpPerDay };
        const ip = clientIp(request, server, config.trustProxy);
        const { account, sessionToken: token } = await signUp(store, await readObjectBody(request), policy, { ip, now: at });
        return json({ email: account.email }, 201, { "set-cookie": sessionCookie(token, config, at) });
      },
      { parse: "none" },
    )
    .post(
      "/auth/login",
      async ({ request, server }) => {
        const at = now();
        const ip = clientIp(request, server, config.trustProxy);
        const { account, sessionToken: token } = await logIn(store, await readObjectBody(request), { ip, now: at });
        return json({ email: account.email }, 200, { "set-cookie": sessionCookie(token, config, at) });
      },
      { parse: "none" },
    )
    .post("/auth/logout", async ({ request }) => {
      const token = sessionToken(request);
      if (token !== null) await store.deleteSession(hashSessionToken(token));
      return json({ success: true }, 200, { "set-cookie": clearedSessionCookie(config) });
    }, { parse: "none" });
