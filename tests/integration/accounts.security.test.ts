// The account flows' security rules: links are random, single use, expiring and stored hashed;
// forgot never tells whether an address has an account; sign-up and forgot are limited per IP;
// cookie-authenticated writes check Origin; one account can never end another's sessions.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { hashSessionToken } from "../../src/core/accounts/session.ts";
import { exec, rows } from "../../src/db/sql.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { readJson } from "../support/http.ts";
import { linkToken, mailsTo } from "../support/mail.ts";
import { PASSWORD, request, signUpUser, uniqueEmail } from "../support/session.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

setDefaultTimeout(20_000);

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describeEachDialect("account security rules", (dialect) => {
  const gateway = useGateway(dialect, { SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10", TRUST_PROXY: "1" });
  let n = 0;
  const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(gateway().url, "POST", path, body, { "x-forwarded-for": `192.0.2.${++n % 250}`, ...headers });

  describe("links", () => {
    test("are stored only as their SHA-256, and the sent e-mail's text is deleted", async () => {
      const user = await signUpUser(gateway().url);
      const token = await linkToken(smtp, user.email, "verify");
      const stored = await gateway().db.run(rows("SELECT token_hash FROM auth_tokens WHERE token_hash = ?", hashSessionToken(token)));
      expect(stored).toHaveLength(1);
      expect(await gateway().db.run(rows("SELECT token_hash FROM auth_tokens WHERE token_hash = ?", token))).toEqual([]);
      const { id } = (await gateway().store.findAccountByEmail(user.email))!;
      await waitFor(async () => {
        const [mail] = await gateway().db.run(rows(
          "SELECT o.body, o.sent_at, t.body AS text FROM alert_outbox o LEFT JOIN account_mail_texts t ON t.outbox_id = o.id WHERE o.account_id = ?", id,
        ));
        return mail?.sent_at !== null && mail?.body === null && mail?.text === null;
      }, "the outbox row to be sent and its text deleted");
    });

    test("expire: a verification link past its 24 hours is refused", async () => {
      const user = await signUpUser(gateway().url);
      const token = await linkToken(smtp, user.email, "verify");
      await gateway().db.run(exec("UPDATE auth_tokens SET expires_at = ? WHERE token_hash = ?", Date.now() - 1, hashSessionToken(token)));
      const res = await post("/auth/verify", { token });
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error: "This link is invalid or has expired" });
    });

    test("serve one purpose: a verification link cannot reset a password", async () => {
      const user = await signUpUser(gateway().url);
      const token = await linkToken(smtp, user.email, "verify");
      expect((await post("/auth/password/reset", { token, password: "a different password" })).status).toBe(400);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD })).status).toBe(200);
    });

    test.each([
      ["no token", {}],
      ["a number", { token: 42 }],
      ["a short string", { token: "abc" }],
      ["a NUL", { token: `${"A".repeat(42)}\u0000` }],
    ])("with %s answer 400", async (_title, body) => {
      for (const path of ["/auth/verify", "/auth/password/reset"]) {
        const res = await post(path, { password: "long enough password", ...body });
        expect({ path, status: res.status, body: await readJson(res) }).toEqual({ path, status: 400, body: { error: "This link is invalid or has expired" } });
      }
    });
  });

  describe("forgot", () => {
    test("answers the same for an address with and without an account, and e-mails only the first", async () => {
      const user = await signUpUser(gateway().url);
      const ghost = uniqueEmail("ghost");
      const known = await post("/auth/password/forgot", { email: user.email });
      const unknown = await post("/auth/password/forgot", { email: ghost });
      expect([known.status, await known.text()]).toEqual([unknown.status, await unknown.text()]);
      expect(known.headers.get("content-type")).toBe(unknown.headers.get("content-type"));
      await linkToken(smtp, user.email, "reset");
      const ghostRows = await gateway().db.run(rows("SELECT id FROM alert_outbox WHERE email = ?", ghost));
      expect(ghostRows).toEqual([]);
    });

    test("takes as long for an unknown address as for a known one (same timing class)", async () => {
      const user = await signUpUser(gateway().url);
      const time = async (email: string) => {
        const start = performance.now();
        await post("/auth/password/forgot", { email });
        return performance.now() - start;
      };
      const known: number[] = [];
      const unknown: number[] = [];
      // The address's own cap (3 an hour) is reached after three; the answer and the work stay the same.
      for (let i = 0; i < 5; i++) {
        known.push(await time(user.email));
        unknown.push(await time(uniqueEmail("nobody")));
      }
      expect(Math.abs(median(known) - median(unknown))).toBeLessThan(100);
    });

    test("e-mails one address at most 3 reset links an hour, answering 200 all the same", async () => {
      const user = await signUpUser(gateway().url);
      for (let i = 0; i < 5; i++) expect((await post("/auth/password/forgot", { email: user.email })).status).toBe(200);
      await linkToken(smtp, user.email, "reset", 3);
      const { id } = (await gateway().store.findAccountByEmail(user.email))!;
      const links = await gateway().db.run(rows("SELECT token_hash FROM auth_tokens WHERE account_id = ? AND purpose = 'reset'", id));
      expect(links).toHaveLength(3);
      expect(mailsTo(smtp, user.email).filter((m) => m.raw.includes("Subject: Reset your gateway password"))).toHaveLength(3);
    });
  });

  describe("Origin checks", () => {
    const evil = { origin: "https://evil.example" };
    test("every new cookie-authenticated write from another site is 403 and changes nothing", async () => {
      const user = await signUpUser(gateway().url);
      const writes: [string, string, unknown][] = [
        ["POST", "/auth/verify/resend", undefined],
        ["POST", "/auth/password/change", { currentPassword: PASSWORD, newPassword: "hijacked password" }],
        ["POST", "/auth/sessions/revoke-others", undefined],
        ["DELETE", "/auth/sessions/00000000000000000000000000000000", undefined],
        ["POST", "/auth/totp/setup", undefined],
        ["POST", "/auth/totp/enable", { code: "123456" }],
        ["POST", "/auth/totp/disable", { code: "123456" }],
        ["POST", "/auth/verify", { token: "x" }],
        ["POST", "/auth/password/forgot", { email: user.email }],
        ["POST", "/auth/password/reset", { token: "x", password: "hijacked password" }],
      ];
      for (const [method, path, body] of writes) {
        const res = await user.send(method, path, body, evil);
        expect({ path, status: res.status, body: await readJson(res) }).toEqual({ path, status: 403, body: { error: "Forbidden" } });
      }
      expect((await post("/auth/login", { email: user.email, password: PASSWORD })).status).toBe(200);
      expect((await readJson(await user.send("GET", "/account/security"))).totpEnabled).toBe(false);
    });
  });

  test("one account's session id ends nothing of another's (404)", async () => {
    const alice = await signUpUser(gateway().url);
    const bob = await signUpUser(gateway().url);
    const [bobSession] = (await readJson(await bob.send("GET", "/auth/sessions"))).sessions;
    const res = await alice.send("DELETE", `/auth/sessions/${bobSession.id}`);
    expect(res.status).toBe(404);
    expect(await readJson(res)).toEqual({ error: "Session not found" });
    expect((await bob.send("GET", "/account")).status).toBe(200);
  });

  test("the TOTP secret is answered by the set-up only; a second set-up while on is refused", async () => {
    const user = await signUpUser(gateway().url);
    const { secret } = await readJson(await user.send("POST", "/auth/totp/setup"));
    const { totpCode } = await import("../../src/core/accounts/totp.ts");
    await user.send("POST", "/auth/totp/enable", { code: totpCode(secret, Date.now()) });
    const again = await user.send("POST", "/auth/totp/setup");
    expect(again.status).toBe(409);
    for (const path of ["/account", "/account/security", "/auth/sessions", "/account/audit"]) {
      expect(await (await user.send("GET", path)).text()).not.toContain(secret);
    }
  });

  test("turning two-factor sign-in off takes at most 10 wrong codes in 15 minutes, so a stolen session cannot guess one", async () => {
    const user = await signUpUser(gateway().url);
    const { secret } = await readJson(await user.send("POST", "/auth/totp/setup"));
    const { totpCode } = await import("../../src/core/accounts/totp.ts");
    await user.send("POST", "/auth/totp/enable", { code: totpCode(secret, Date.now()) });
    for (let i = 0; i < 10; i++) expect((await user.send("POST", "/auth/totp/disable", { code: "000000" })).status).toBe(400);
    const refused = await user.send("POST", "/auth/totp/disable", { code: totpCode(secret, Date.now() + 30_000) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect((await readJson(await user.send("GET", "/account/security"))).totpEnabled).toBe(true);
  });

  describe("without a session", () => {
    test.each([
      ["GET", "/account/security"], ["GET", "/auth/sessions"], ["POST", "/auth/sessions/revoke-others"],
      ["DELETE", "/auth/sessions/abc"], ["POST", "/auth/verify/resend"], ["POST", "/auth/password/change"],
      ["POST", "/auth/totp/setup"], ["POST", "/auth/totp/enable"], ["POST", "/auth/totp/disable"], ["GET", "/account/audit"],
    ])("%s %s answers 401", async (method, path) => {
      const res = await request(gateway().url, method, path);
      expect(res.status).toBe(401);
      expect(await readJson(res)).toEqual({ error: "Unauthorized" });
    });
  });
});

describeEachDialect("per-IP limits on sign-up and forgot", (dialect) => {
  const gateway = useGateway(dialect, { AUTH_PER_IP_PER_HOUR: "10", TRUST_PROXY: "1" });

  test.each([
    ["/auth/signup", (i: number) => ({ email: uniqueEmail(`limit${i}`), password: PASSWORD })],
    ["/auth/password/forgot", (i: number) => ({ email: uniqueEmail(`forgot${i}`) })],
  ])("%s allows 10 requests per IP an hour, then 429 with Retry-After; other IPs go on", async (path, body) => {
    const ip = { "x-forwarded-for": path === "/auth/signup" ? "203.0.113.77" : "203.0.113.78" };
    for (let i = 0; i < 10; i++) expect((await request(gateway().url, "POST", path, body(i), ip)).status).toBeLessThan(300);
    const refused = await request(gateway().url, "POST", path, body(10), ip);
    expect(refused.status).toBe(429);
    expect(await readJson(refused)).toEqual({ error: "Too many requests. Please try again later." });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await request(gateway().url, "POST", path, body(11), { "x-forwarded-for": "203.0.113.79" })).status).toBeLessThan(300);
  });
});
