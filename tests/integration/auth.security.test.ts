import { describe, expect, test } from "bun:test";
import { hashSessionToken } from "../../src/core/accounts/session.ts";
import { accountOf, ip, useAuthGateway } from "../support/auth.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { logInUser, PASSWORD, request, signUpUser, uniqueEmail } from "../support/session.ts";

describeEachDialect("sign-up, sign-in and sessions: security", (dialect) => {
  const { gateway, post } = useAuthGateway(dialect);

  test("the session token is stored only as its SHA-256 hash", async () => {
    const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
    const token = user.cookie.slice("gw_session=".length);
    const { id } = await accountOf(gateway(), user.email);
    expect(await gateway().store.findSession(token, Date.now())).toBeNull();
    expect((await gateway().store.findSession(hashSessionToken(token), Date.now()))?.accountId).toBe(id);
  });

  describe("login", () => {
    test("allows 10 failed attempts per IP in 15 minutes, then 429 saying why, with Retry-After, even for the right password", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      const attacker = { "x-forwarded-for": ip() };
      for (let i = 0; i < 10; i++) {
        const res = await post("/auth/login", { email: uniqueEmail("guess"), password: "guess" }, attacker);
        expect(res.status).toBe(401);
      }
      const refused = await post("/auth/login", { email: user.email, password: PASSWORD }, attacker);
      expect(refused.status).toBe(429);
      expect(await readJson(refused)).toEqual({ error: "Too many failed sign-in attempts from this address. Try again in 15 minutes." });
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD })).status).toBe(200);
    });

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
});
