import { Elysia } from "elysia";
import { changePassword, resendVerification } from "../../../core/accounts/recovery.ts";
import { endOtherSessions, endSession, sessionList } from "../../../core/accounts/session-list.ts";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { MESSAGES } from "../../../core/errors.ts";
import { beginTotpSetup, confirmTotp, turnOffTotp } from "../../../core/accounts/totp.ts";
import type { AppDeps } from "../../deps.ts";
import { clientIp } from "../../client-ip.ts";
import { json, methodGuards } from "../../http.ts";
import { readObjectBody } from "../../object-body.ts";
import { sessionPlugin, type Session } from "../../session.ts";

const SUCCESS = { success: true };

type Ctx = { session: Session; request: Request; server: Parameters<typeof clientIp>[1] };

/**
 * What a signed-in owner does to keep the account safe: resend the verification e-mail, change
 * the password, list and end sessions, and set up or turn off two-factor sign-in.
 */
export const accountSecurityRoutes = (deps: AppDeps) => {
  const { config, store, now, wakeMailer } = deps;
  const who = ({ session, request, server }: Ctx) => {
    const account = signedInAccount(session, MESSAGES.accountNotFound);
    const ip = clientIp(request, server, config.trustProxy);
    const at = now();
    return { account, ip, now: at, ctx: { accountId: account.id, currentHash: session.tokenHash, email: account.email, ip, now: at } };
  };
  return new Elysia({ name: "account-security" })
    .use(methodGuards({
      "/account/security": "GET", "/auth/verify/resend": "POST", "/auth/password/change": "POST", "/auth/sessions": "GET",
      "/auth/sessions/revoke-others": "POST", "/auth/sessions/:id": "DELETE", "/auth/totp/setup": "POST",
      "/auth/totp/enable": "POST", "/auth/totp/disable": "POST",
    }))
    .use(sessionPlugin(deps))
    .get("/account/security", async (c) => {
      const { account } = who(c);
      return json({
        emailVerified: account.emailVerifiedAt !== null,
        totpEnabled: account.totpEnabledAt !== null,
        recoveryCodesLeft: account.totpEnabledAt === null ? 0 : await store.recoveryCodesLeft(account.id),
      });
    })
    .post("/auth/verify/resend", async (c) => {
      const { account, now: at } = who(c);
      await resendVerification(store, account, config.dashboardUrl, at);
      wakeMailer?.();
      return json(SUCCESS);
    }, { parse: "none" })
    .post("/auth/password/change", async (c) => {
      const { account, ip, now: at } = who(c);
      await changePassword(store, account, await readObjectBody(c.request), { ip, now: at, sessionHash: c.session.tokenHash });
      return json(SUCCESS);
    }, { parse: "none" })
    .get("/auth/sessions", async (c) => {
      const { account, now: at } = who(c);
      return json(await sessionList(store, account.id, c.session.tokenHash, at));
    })
    .post("/auth/sessions/revoke-others", async (c) => {
      await endOtherSessions(store, who(c).ctx);
      return json(SUCCESS);
    }, { parse: "none" })
    .delete("/auth/sessions/:id", async (c) => {
      await endSession(store, c.params.id, who(c).ctx);
      return json(SUCCESS);
    }, { parse: "none" })
    // The secret is in this answer only; the dashboard draws the QR code from `uri` in the browser.
    .post("/auth/totp/setup", async (c) => json(await beginTotpSetup(store, who(c).ctx)), { parse: "none" })
    .post("/auth/totp/enable", async (c) => {
      const body = await readObjectBody(c.request);
      return json({ success: true, recoveryCodes: await confirmTotp(store, body.code, who(c).ctx) });
    }, { parse: "none" })
    .post("/auth/totp/disable", async (c) => {
      const body = await readObjectBody(c.request);
      await turnOffTotp(store, body.code, who(c).ctx);
      return json(SUCCESS);
    }, { parse: "none" });
};
