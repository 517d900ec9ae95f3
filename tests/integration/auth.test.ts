import { describe, expect, test } from "bun:test";
import { hashSessionToken } from "../../src/core/auth-session.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { browserWith, logInUser, PASSWORD, request, signUpUser, uniqueEmail } from "../support/session.ts";
import { useGateway, type TestGateway } from "../support/server.ts";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const THIRTY_DAYS_S = 30 * 24 * 60 * 60;
let ips = 0;
const ip = () => `203.0.113.${++ips}`;

const accountOf = async (gateway: TestGateway, email: string) =>
  (await gateway.store.findAccountByEmail(email)) ?? Promise.reject(new Error(`no account ${email}`));

describeEachDialect("sign-up, sign-in and sessions", (dialect) => {
  const gateway = useGateway(dialect, { TRUST_PROXY: "1" });
  const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(gateway().url, "POST", path, body, { "x-forwarded-for": ip(), ...headers });

  test("sign-up answers 201 with the normalized e-mail and a session cookie with the right flags", async () => {
    const email = uniqueEmail("Signup");
    const before = Date.now();
    const res = await post("/auth/signup", { email: `  ${email.toUpperCase()} `, password: PASSWORD, extra: "ignored" });
    expect(res.status).toBe(201);
    expect(await readJson(res)).toEqual({ email: email.toLowerCase() });
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(
      new RegExp(`^gw_session=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${THIRTY_DAYS_S}; Expires=[^;]+ GMT$`),
    );
    const expires = Date.parse(cookie.split("Expires=")[1]!);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + THIRTY_DAYS_S * 1000);
    expect(cookie).not.toContain("Secure");

    const account = await browserWith(gateway().url, email.toLowerCase(), cookie.split(";")[0]!).send("GET", "/account");
    expect(account.status).toBe(200);
    const body = await readJson(account);
    expect(body).toEqual({
      email: email.toLowerCase(),
      // The free credits wait for the e-mail's verification.
      balanceUsd: "0.000000",
      alertThreshold: null,
      spendSafetyLimit: -1,
      createdAt: expect.stringMatching(ISO_MS),
    });
    expect(Date.parse(body.createdAt)).toBeGreaterThanOrEqual(before);
  });

  test("the session token is stored only as its SHA-256 hash", async () => {
    const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
    const token = user.cookie.slice("gw_session=".length);
    const { id } = await accountOf(gateway(), user.email);
    expect(await gateway().store.findSession(token, Date.now())).toBeNull();
    expect((await gateway().store.findSession(hashSessionToken(token), Date.now()))?.accountId).toBe(id);
  });

  test.each([
    ["a malformed e-mail", { email: "not-an-email", password: PASSWORD }, "email must be a valid e-mail address"],
    ["a missing e-mail", { password: PASSWORD }, "email is required and must be a string"],
    ["a password under 10 characters", { email: "short@example.com", password: "123456789" }, "password must be at least 10 characters"],
    ["a password over 200 characters", { email: "long@example.com", password: "x".repeat(201) }, "password must be at most 200 characters"],
    ["a missing password", { email: "nopw@example.com" }, "password is required and must be a string"],
    ["a JSON array", [], "Request body must be a JSON object"],
    ["a JSON string", "\"hello\"", "Request body must be a JSON object"],
    ["JSON null", "null", "Request body must be a JSON object"],
    ["text that is not JSON", "email=a@b.c", "Request body is not valid JSON"],
  ])("sign-up with %s answers 400", async (_title, body, error) => {
    const res = await post("/auth/signup", body);
    expect(res.status).toBe(400);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await readJson(res)).toEqual({ error });
  });

  test("a taken e-mail answers 409, whatever its case", async () => {
    const email = uniqueEmail("taken");
    await signUpUser(gateway().url, email, { "x-forwarded-for": ip() });
    const res = await post("/auth/signup", { email: email.toUpperCase(), password: "another password" });
    expect(res.status).toBe(409);
    expect(await readJson(res)).toEqual({ error: "Email already registered" });
  });

  describe("login", () => {
    test("answers 200 with the e-mail and a new session; both sessions stay valid", async () => {
      const first = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      const res = await post("/auth/login", { email: ` ${first.email.toUpperCase()}`, password: PASSWORD });
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual({ email: first.email });
      const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
      expect(cookie).not.toBe(first.cookie);
      for (const c of [cookie, first.cookie]) {
        expect((await browserWith(gateway().url, first.email, c).send("GET", "/account")).status).toBe(200);
      }
    });

    test.each([
      ["a wrong password", "wrong password"],
      ["the password in another case", PASSWORD.toUpperCase()],
    ])("with %s answers 401", async (_title, password) => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      const res = await post("/auth/login", { email: user.email, password });
      expect(res.status).toBe(401);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(await readJson(res)).toEqual({ error: "Invalid email or password" });
    });

    test("with an unknown e-mail answers the same 401", async () => {
      const res = await post("/auth/login", { email: uniqueEmail("ghost"), password: PASSWORD });
      expect(res.status).toBe(401);
      expect(await readJson(res)).toEqual({ error: "Invalid email or password" });
    });

    test("without e-mail or password answers 400", async () => {
      const res = await post("/auth/login", { email: "a@example.com" });
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error: "email and password are required and must be strings" });
    });

    test("allows 10 attempts per IP in 15 minutes, then 429 with Retry-After even for the right password", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      const attacker = { "x-forwarded-for": ip() };
      for (let i = 0; i < 10; i++) {
        const res = await post("/auth/login", { email: uniqueEmail("guess"), password: "guess" }, attacker);
        expect(res.status).toBe(401);
      }
      const refused = await post("/auth/login", { email: user.email, password: PASSWORD }, attacker);
      expect(refused.status).toBe(429);
      expect(await readJson(refused)).toEqual({ error: "Too many sign-in attempts. Please try again later." });
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD })).status).toBe(200);
    });

    test("allows 10 attempts per e-mail in 15 minutes, from however many IPs", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      for (let i = 0; i < 10; i++) expect((await post("/auth/login", { email: user.email, password: "guess" })).status).toBe(401);
      const refused = await post("/auth/login", { email: user.email.toUpperCase(), password: PASSWORD });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).not.toBeNull();
    });
  });

  test("logout answers 200, ends the session and clears the cookie", async () => {
    const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
    const res = await user.send("POST", "/auth/logout");
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ success: true });
    expect(res.headers.get("set-cookie")).toBe(
      "gw_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    );
    const after = await user.send("GET", "/account");
    expect(after.status).toBe(401);
    expect(await readJson(after)).toEqual({ error: "Unauthorized" });
    expect((await post("/auth/logout")).status).toBe(200);
  });

  describe("without a valid session, account endpoints answer 401 Unauthorized", () => {
    const expiredCookie = async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      const { id } = await accountOf(gateway(), user.email);
      const token = `expired-${dialect}-${Date.now()}`;
      const now = Date.now();
      await gateway().store.createSession({ tokenHash: hashSessionToken(token), accountId: id, now: now - 7_200_000, expiresAt: now - 1 });
      return `gw_session=${token}`;
    };
    const CASES: [string, () => Promise<Record<string, string>>][] = [
      ["no cookie", async () => ({})],
      ["an unknown token", async () => ({ cookie: "gw_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" })],
      ["an empty cookie", async () => ({ cookie: "gw_session=" })],
      ["another cookie only", async () => ({ cookie: "theme=dark" })],
      ["an expired session", async () => ({ cookie: await expiredCookie() })],
    ];
    const ENDPOINTS: [string, string, unknown][] = [
      ["GET", "/account", undefined],
      ["POST", "/keys/generate", {}],
      ["GET", "/keys/generate", undefined],
      ["PATCH", "/keys/01900000-0000-7000-8000-000000000000", { name: "x" }],
      ["POST", "/keys/01900000-0000-7000-8000-000000000000/rotate", undefined],
      ["DELETE", "/keys/01900000-0000-7000-8000-000000000000/revoke", undefined],
      ["DELETE", "/keys/01900000-0000-7000-8000-000000000000", undefined],
      ["GET", "/usage/export", undefined],
      ["PATCH", "/settings/alert-threshold", { threshold: 5 }],
      ["PATCH", "/settings/spend-safety-limit", { limit: 5 }],
    ];
    test.each(CASES)("with %s", async (_title, headers) => {
      const sent = await headers();
      for (const [method, path, body] of ENDPOINTS) {
        const res = await request(gateway().url, method, path, body, sent);
        expect({ method, path, status: res.status, body: await readJson(res) }).toEqual({
          method, path, status: 401, body: { error: "Unauthorized" },
        });
      }
    });
  });

  describe("banned and deleted accounts", () => {
    test("a banned account cannot log in (403) and its sessions answer 403", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      const { id } = await accountOf(gateway(), user.email);
      await gateway().store.updateAccount(id, { bannedAt: Date.now() });
      const login = await post("/auth/login", { email: user.email, password: PASSWORD });
      expect(login.status).toBe(403);
      expect(login.headers.get("set-cookie")).toBeNull();
      expect(await readJson(login)).toEqual({ error: "Forbidden" });
      const res = await user.send("GET", "/keys/generate");
      expect(res.status).toBe(403);
      expect(await readJson(res)).toEqual({ error: "Forbidden" });
      await gateway().store.updateAccount(id, { bannedAt: null });
      expect((await logInUser(gateway().url, user.email)).email).toBe(user.email);
    });

    test("a banned account with a wrong password still gets only the 401", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      await gateway().store.updateAccount((await accountOf(gateway(), user.email)).id, { bannedAt: Date.now() });
      expect((await post("/auth/login", { email: user.email, password: "wrong password" })).status).toBe(401);
    });

    test("a deleted account cannot log in (403) and its sessions answer each endpoint's 404", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      await gateway().store.updateAccount((await accountOf(gateway(), user.email)).id, { deletedAt: Date.now() });
      const login = await post("/auth/login", { email: user.email, password: PASSWORD });
      expect(login.status).toBe(403);
      expect(await readJson(login)).toEqual({ error: "Forbidden" });
      const expected: [string, string, unknown, string][] = [
        ["GET", "/account", undefined, "Account not found"],
        ["POST", "/keys/generate", {}, "Account not found"],
        ["GET", "/keys/generate", undefined, "Account not found"],
        ["PATCH", "/settings/alert-threshold", { threshold: 1 }, "Account not found"],
        ["GET", "/usage/export", undefined, "User not found"],
      ];
      for (const [method, path, body, error] of expected) {
        const res = await user.send(method, path, body);
        expect({ path, status: res.status, body: await readJson(res) }).toEqual({ path, status: 404, body: { error } });
      }
    });
  });

  describe("the Origin check on cookie-authenticated writes", () => {
    test.each([
      ["another site", "https://evil.example"],
      ["another port of this host", "http://127.0.0.1:1"],
      ["an opaque origin", "null"],
    ])("refuses a write from %s with 403 Forbidden, changing nothing", async (_title, origin) => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      const res = await user.send("PATCH", "/settings/alert-threshold", { threshold: 42 }, { origin });
      expect(res.status).toBe(403);
      expect(await readJson(res)).toEqual({ error: "Forbidden" });
      expect((await user.send("POST", "/keys/generate", {}, { origin })).status).toBe(403);
      expect((await user.send("POST", "/auth/logout", undefined, { origin })).status).toBe(403);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD }, { origin })).status).toBe(403);
      expect((await readJson(await user.send("GET", "/account"))).alertThreshold).toBeNull();
    });

    test("allows writes from the service's own origin, from the request's host, and without Origin", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      const own = new URL(gateway().config.publicUrl).origin;
      const host = new URL(gateway().url).origin;
      for (const headers of [{ origin: own }, { origin: host }, {}] as Record<string, string>[]) {
        expect((await user.send("PATCH", "/settings/alert-threshold", { threshold: 1 }, headers)).status).toBe(200);
      }
    });

    test("does not apply to reads", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      expect((await user.send("GET", "/account", undefined, { origin: "https://evil.example" })).status).toBe(200);
    });
  });

  test.each([
    ["GET", "/auth/signup", "POST"],
    ["GET", "/auth/login", "POST"],
    ["DELETE", "/auth/logout", "POST"],
    ["POST", "/account", "GET"],
  ])("%s %s answers 405 naming %s", async (method, path, allowed) => {
    const res = await request(gateway().url, method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allowed);
    expect(await readJson(res)).toEqual({ error: `Method not allowed. Use ${allowed}.` });
  });
});

describeEachDialect("sessions behind https, under BASE_PATH, with free credits off", (dialect) => {
  const gateway = useGateway(dialect, { BASE_PATH: "/api", PUBLIC_URL: "https://gateway.example.com", FREE_CREDITS_USD: "0" });

  test("the cookie is Secure, scoped to the base path, and the public origin may write", async () => {
    const res = await request(gateway().url, "POST", "/auth/signup", { email: uniqueEmail(), password: PASSWORD }, {
      origin: "https://gateway.example.com",
    });
    expect(res.status).toBe(201);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toContain("; Path=/api; HttpOnly; SameSite=Lax; Secure; Max-Age=");
    const user = browserWith(gateway().url, "", cookie.split(";")[0]!);
    expect((await readJson(await user.send("GET", "/account"))).balanceUsd).toBe("0.000000");
    const logout = await user.send("POST", "/auth/logout", undefined, { origin: "https://gateway.example.com" });
    expect(logout.headers.get("set-cookie")).toBe(
      "gw_session=; Path=/api; HttpOnly; SameSite=Lax; Secure; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    );
  });
});
