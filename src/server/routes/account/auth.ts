import { Elysia } from "elysia";
import { forgotPassword, resetPassword, verifyEmail } from "../../../core/accounts/recovery.ts";
import { logIn, signUp } from "../../../core/accounts/sign-in.ts";
import { hashSessionToken } from "../../../core/accounts/session.ts";
import { formatUsd } from "../../../core/money.ts";
import type { AppDeps } from "../../deps.ts";
import { clientOf } from "../../client-ip.ts";
import { json, methodGuards } from "../../http.ts";
import { readObjectBody } from "../../object-body.ts";
import { refuseCrossSiteWrite } from "../../csrf.ts";
import { deviceToken, withDeviceCookie } from "../../device-cookie.ts";
import { clearedSessionCookie, sessionCookie, sessionToken } from "../../session.ts";

const SUCCESS = { success: true };

/**
 * The sign-in endpoints that need no session: sign-up, sign-in and sign-out (they set and clear
 * the `gw_session` cookie), and the e-mailed links' endpoints: verify, forgot and reset.
 */
export const authRoutes = ({ config, store, now, wakeMailer }: AppDeps) => {
  const policy = { amount: config.freeCredits, perIpPerDay: config.freeCreditsPerIpPerDay };
  const links = { dashboardUrl: config.dashboardUrl, perIpPerHour: config.authPerIpPerHour };
  const mailQueued = () => wakeMailer?.();
  return new Elysia({ name: "auth" })
    .use(methodGuards({
      "/auth/signup": "POST", "/auth/login": "POST", "/auth/logout": "POST", "/auth/verify": "POST",
      "/auth/password/forgot": "POST", "/auth/password/reset": "POST",
    }))
    // A forged cross-site sign-in would log the victim into the attacker's account; the same
    // rule as for cookie-authenticated writes, with or without a cookie.
    .onBeforeHandle(({ request }) => refuseCrossSiteWrite(request, config))
    .post("/auth/signup", async ({ request, server }) => {
      const at = now();
      const ctx = { ...clientOf(request, server, config.trustProxy), now: at };
      const { account, sessionToken: token, deviceToken: device } = await signUp(store, await readObjectBody(request), links, ctx);
      mailQueued();
      return withDeviceCookie(json({ email: account.email }, 201, { "set-cookie": sessionCookie(token, config, at) }), device, config, at);
    }, { parse: "none" })
    .post("/auth/login", async ({ request, server }) => {
      const at = now();
      const ctx = { ...clientOf(request, server, config.trustProxy), now: at, deviceToken: deviceToken(request) };
      const { account, sessionToken: token, deviceToken: device } = await logIn(store, await readObjectBody(request), ctx);
      return withDeviceCookie(json({ email: account.email }, 200, { "set-cookie": sessionCookie(token, config, at) }), device, config, at);
    }, { parse: "none" })
    .post("/auth/logout", async ({ request, server }) => {
      const token = sessionToken(request);
      const at = now();
      const found = token === null ? null : await store.findSession(hashSessionToken(token), at);
      if (token !== null && found) {
        const { ip } = clientOf(request, server, config.trustProxy);
        await store.endSessions({ accountId: found.accountId, tokenHashes: [hashSessionToken(token)], ip, detail: "signed out", now: at });
      }
      return json(SUCCESS, 200, { "set-cookie": clearedSessionCookie(config) });
    }, { parse: "none" })
    .post("/auth/verify", async ({ request, server }) => {
      const { ip } = clientOf(request, server, config.trustProxy);
      const { freeCreditsGranted } = await verifyEmail(store, await readObjectBody(request), policy, { ip, now: now() });
      // The free credits this verification added, when it added any, so that the page can name the amount.
      return json(freeCreditsGranted ? { ...SUCCESS, creditsGrantedUsd: formatUsd(policy.amount, 6) } : SUCCESS);
    }, { parse: "none" })
    .post("/auth/password/forgot", async ({ request, server }) => {
      const { ip } = clientOf(request, server, config.trustProxy);
      await forgotPassword(store, await readObjectBody(request), links, { ip, now: now() });
      mailQueued();
      return json(SUCCESS);
    }, { parse: "none" })
    .post("/auth/password/reset", async ({ request, server }) => {
      const { ip } = clientOf(request, server, config.trustProxy);
      await resetPassword(store, await readObjectBody(request), { ip, now: now() });
      // The caller's own session, if any, ended with every other one.
      return json(SUCCESS, 200, { "set-cookie": clearedSessionCookie(config) });
    }, { parse: "none" });
};
