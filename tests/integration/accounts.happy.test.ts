// Each account flow end to end: the real server sends its e-mails through the outbox to a real
// SMTP server, and the test follows the links in them, as a customer would.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { hashSessionToken, SESSION_TTL_MS } from "../../src/core/accounts/session.ts";
import { totpCode } from "../../src/core/accounts/totp.ts";
import { exec } from "../../src/db/sql.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { readJson } from "../support/http.ts";
import { linkToken, mailsTo, verifyByMail } from "../support/mail.ts";
import { browserWith, logInUser, PASSWORD, request, signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

setDefaultTimeout(20_000); // several argon2 hashes per test

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());
let clients = 0;
/** Each sign-in from its own address, so that the per-IP sign-in limit does not bind the file's many sign-ins. */
const fromNewIp = () => ({ "x-forwarded-for": `198.51.100.${++clients % 250}` });

const NEW_PASSWORD = "a brand new passphrase";

describeEachDialect("account flows", (dialect) => {
  const gateway = useGateway(dialect, { SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10", PUBLIC_URL: "https://gw.example", TRUST_PROXY: "1" });
  const post = (path: string, body?: unknown) => request(gateway().url, "POST", path, body, fromNewIp());
  const auditTypes = async (user: Browser) => (await readJson(await user.send("GET", "/account/audit"))).events.map((e: { type: string }) => e.type);

  describe("e-mail verification", () => {
    test("sign-up e-mails a link; following it verifies the address and grants the free credits once", async () => {
      const user = await signUpUser(gateway().url);
      expect(await readJson(await user.send("GET", "/account/security"))).toEqual({ emailVerified: false, totpEnabled: false, recoveryCodesLeft: 0 });
      const token = await linkToken(smtp, user.email, "verify");
      const [mail] = mailsTo(smtp, user.email);
      expect(mail!.raw).toContain("Subject: Confirm your e-mail address");
      expect(mail!.text).toContain(`https://gw.example/dashboard/verify?token=${token}`);
      const verified = await post("/auth/verify", { token });
      expect(verified.status).toBe(200);
      expect(await readJson(verified)).toEqual({ success: true, creditsGrantedUsd: "5.000000" });
      expect((await readJson(await user.send("GET", "/account"))).balanceUsd).toBe("5.000000");
      expect((await readJson(await user.send("GET", "/account/security"))).emailVerified).toBe(true);
      const again = await post("/auth/verify", { token });
      expect(again.status).toBe(400);
      expect(await readJson(again)).toEqual({ error: "This link is invalid or has expired" });
      expect((await readJson(await user.send("GET", "/account"))).balanceUsd).toBe("5.000000");
      expect(await auditTypes(user)).toEqual(["credits_granted", "email_verified", "signup"]);
    });

    test("resend e-mails a fresh link; a second verification grants nothing more", async () => {
      const user = await signUpUser(gateway().url);
      const first = await linkToken(smtp, user.email, "verify");
      expect(await readJson(await user.send("POST", "/auth/verify/resend"))).toEqual({ success: true });
      const second = await linkToken(smtp, user.email, "verify", 2);
      expect(second).not.toBe(first);
      expect((await post("/auth/verify", { token: second })).status).toBe(200);
      expect((await post("/auth/verify", { token: first })).status).toBe(200);
      expect((await readJson(await user.send("GET", "/account"))).balanceUsd).toBe("5.000000");
      await user.send("POST", "/auth/verify/resend");
      expect(await readJson(await user.send("GET", "/account/security"))).toMatchObject({ emailVerified: true });
      expect(mailsTo(smtp, user.email)).toHaveLength(2);
    });
  });

  describe("password recovery and change", () => {
    test("forgot e-mails a reset link; reset sets the password and ends every session", async () => {
      const user = await signUpUser(gateway().url);
      const other = await logInUser(gateway().url, user.email);
      expect(await readJson(await post("/auth/password/forgot", { email: user.email.toUpperCase() }))).toEqual({ success: true });
      const token = await linkToken(smtp, user.email, "reset");
      expect(mailsTo(smtp, user.email).at(-1)!.text).toContain(`https://gw.example/dashboard/reset?token=${token}`);
      const reset = await post("/auth/password/reset", { token, password: NEW_PASSWORD });
      expect(reset.status).toBe(200);
      expect(await readJson(reset)).toEqual({ success: true });
      for (const session of [user, other]) expect((await session.send("GET", "/account")).status).toBe(401);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD })).status).toBe(401);
      const back = await logInUser(gateway().url, user.email, NEW_PASSWORD);
      expect((await post("/auth/password/reset", { token, password: "yet another passphrase" })).status).toBe(400);
      expect(await auditTypes(back)).toEqual(["login", "login_failed", "password_reset", "login", "signup"]);
    });

    test("change takes the current password, keeps this session and ends the others", async () => {
      const user = await signUpUser(gateway().url);
      const other = await logInUser(gateway().url, user.email);
      const wrong = await user.send("POST", "/auth/password/change", { currentPassword: "not the password", newPassword: NEW_PASSWORD });
      expect(wrong.status).toBe(400);
      expect(await readJson(wrong)).toEqual({ error: "Current password is incorrect" });
      const short = await user.send("POST", "/auth/password/change", { currentPassword: PASSWORD, newPassword: "short" });
      expect(await readJson(short)).toEqual({ error: "password must be at least 10 characters" });
      const changed = await user.send("POST", "/auth/password/change", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
      expect(await readJson(changed)).toEqual({ success: true });
      expect((await user.send("GET", "/account")).status).toBe(200);
      expect((await other.send("GET", "/account")).status).toBe(401);
      await logInUser(gateway().url, user.email, NEW_PASSWORD);
      expect((await auditTypes(user)).slice(0, 2)).toEqual(["login", "password_changed"]);
    });
  });

  describe("sessions", () => {
    test("lists the account's sessions with their device, and ends one or all the others", async () => {
      const user = await signUpUser(gateway().url, undefined, { "user-agent": "Phone/1.0" });
      const laptop = await logInUser(gateway().url, user.email);
      const third = await logInUser(gateway().url, user.email);
      const listed = await readJson(await laptop.send("GET", "/auth/sessions"));
      expect(listed.sessions).toHaveLength(3);
      expect(listed.sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
      const phone = listed.sessions.find((s: { userAgent: string }) => s.userAgent === "Phone/1.0");
      expect(phone).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/), createdAt: expect.any(String), lastSeenAt: expect.any(String),
        ip: expect.stringMatching(/^(127\.0\.0\.1|198\.51\.100\.\d+)$/), userAgent: "Phone/1.0", current: false,
      });
      expect(await readJson(await laptop.send("DELETE", `/auth/sessions/${phone.id}`))).toEqual({ success: true });
      expect((await user.send("GET", "/account")).status).toBe(401);
      expect((await laptop.send("DELETE", `/auth/sessions/${phone.id}`)).status).toBe(404);
      expect(await readJson(await laptop.send("POST", "/auth/sessions/revoke-others"))).toEqual({ success: true });
      expect((await third.send("GET", "/account")).status).toBe(401);
      expect((await readJson(await laptop.send("GET", "/auth/sessions"))).sessions).toHaveLength(1);
      expect((await auditTypes(laptop)).filter((t: string) => t === "session_ended")).toHaveLength(2);
    });

    test("a session used in the last half of its 30 days is extended, and its cookie sent again", async () => {
      const user = await signUpUser(gateway().url);
      const tokenHash = hashSessionToken(user.cookie.split("=")[1]!);
      const soon = Date.now() + 10 * 24 * 60 * 60 * 1000;
      await gateway().db.run(exec("UPDATE sessions SET expires_at = ? WHERE token_hash = ?", soon, tokenHash));
      const before = Date.now();
      const res = await user.send("GET", "/account");
      expect(res.status).toBe(200);
      expect(res.headers.get("set-cookie")).toStartWith(`${user.cookie}; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=2592000`);
      const found = await gateway().store.findSession(tokenHash, Date.now());
      expect(found!.expiresAt).toBeGreaterThanOrEqual(before + SESSION_TTL_MS);
      expect((await user.send("GET", "/account")).headers.get("set-cookie")).toBeNull();
    });
  });

  describe("two-factor sign-in", () => {
    test("set-up, sign-in with a code, replay refused, a recovery code once, then off", async () => {
      const user = await signUpUser(gateway().url);
      const setup = await readJson(await user.send("POST", "/auth/totp/setup"));
      expect(setup).toEqual({ secret: expect.stringMatching(/^[A-Z2-7]{32}$/), uri: expect.stringContaining("otpauth://totp/Gateway:") });
      expect((await user.send("POST", "/auth/totp/enable", { code: "000000" })).status).toBe(400);
      const enabled = await readJson(await user.send("POST", "/auth/totp/enable", { code: totpCode(setup.secret, Date.now()) }));
      expect(enabled.recoveryCodes).toHaveLength(10);
      expect(await readJson(await user.send("GET", "/account/security"))).toEqual({ emailVerified: false, totpEnabled: true, recoveryCodesLeft: 10 });

      const needed = await post("/auth/login", { email: user.email, password: PASSWORD });
      expect(needed.status).toBe(401);
      expect(await readJson(needed)).toEqual({ error: "Two-factor code required" });
      const wrong = await post("/auth/login", { email: user.email, password: PASSWORD, code: "123456" });
      expect(await readJson(wrong)).toEqual({ error: "Invalid two-factor code" });
      // The code of the step after the one the set-up used: each step signs in once.
      const code = totpCode(setup.secret, Date.now() + 30_000);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD, code })).status).toBe(200);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD, code })).status).toBe(401);
      const recovery = enabled.recoveryCodes[0].toUpperCase();
      const viaRecovery = await post("/auth/login", { email: user.email, password: PASSWORD, code: recovery });
      expect(viaRecovery.status).toBe(200);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD, code: recovery })).status).toBe(401);
      expect((await readJson(await user.send("GET", "/account/security"))).recoveryCodesLeft).toBe(9);

      expect((await user.send("POST", "/auth/totp/disable", { code: "000000" })).status).toBe(400);
      expect(await readJson(await user.send("POST", "/auth/totp/disable", { code: enabled.recoveryCodes[1] }))).toEqual({ success: true });
      expect((await post("/auth/login", { email: user.email, password: PASSWORD })).status).toBe(200);
      const types = await auditTypes(user);
      expect(types).toContain("totp_enabled");
      expect(types).toContain("totp_disabled");
      expect(types.filter((t: string) => t === "login_failed")).toHaveLength(3);
    });
  });

  test("keys made, rotated and revoked from the dashboard are in the audit log, with the IP", async () => {
    const user = await signUpUser(gateway().url);
    await verifyByMail(smtp, gateway().url, user.email);
    await user.send("POST", "/keys/generate", { name: "Backend" });
    const [key] = (await readJson(await user.send("GET", "/keys/generate"))).keys;
    await user.send("POST", `/keys/${key.id}/rotate`);
    const [rotated] = (await readJson(await user.send("GET", "/keys/generate"))).keys;
    await user.send("DELETE", `/keys/${rotated.id}`);
    const { events } = await readJson(await user.send("GET", "/account/audit"));
    const ip = "127.0.0.1"; // no X-Forwarded-For: the socket's peer
    expect(events.slice(0, 3).map((e: { type: string; ip: string; detail: string }) => [e.type, e.ip, e.detail])).toEqual([
      ["key_revoked", ip, `"Backend" (${rotated.prefix}…) from the dashboard`],
      ["key_rotated", ip, `"Backend" (${rotated.prefix}…) from the dashboard`],
      ["key_created", ip, `"Backend" (${key.prefix}…) from the dashboard`],
    ]);
  });

  test("an e-mail logged out of an expired session cannot be used by anyone else", async () => {
    const user = await signUpUser(gateway().url);
    expect((await user.send("POST", "/auth/logout")).status).toBe(200);
    expect((await browserWith(gateway().url, user.email, user.cookie).send("GET", "/auth/sessions")).status).toBe(401);
  });
});
