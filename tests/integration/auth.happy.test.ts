import { describe, expect, test } from "bun:test";
import { ip, useAuthGateway } from "../support/auth.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { hashIsCurrent } from "../../src/core/accounts/password-hash.ts";
import { browserWith, PASSWORD, request, signUpUser, uniqueEmail } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const THIRTY_DAYS_S = 30 * 24 * 60 * 60;

describeEachDialect("sign-up, sign-in and sessions: the happy path", (dialect) => {
  const { gateway, post } = useAuthGateway(dialect);

  test("sign-up answers 201 with the normalized e-mail and a session cookie with the right flags", async () => {
    const email = uniqueEmail("Signup");
    const before = Date.now();
    const res = await post("/auth/signup", { email: `  ${email.toUpperCase()} `, password: PASSWORD, extra: "ignored" });
    expect(res.status).toBe(201);
    expect(await readJson(res)).toEqual({ email: email.toLowerCase() });
    const cookie = res.headers.getSetCookie()[0] ?? "";
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

  describe("login", () => {
    test("a password hashed at another cost signs in, and is hashed again at today's cost", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
      const { store } = gateway();
      const stored = async () => (await store.findCredentials(user.email))!.passwordHash!;
      expect(hashIsCurrent(await stored())).toBe(true);
      // Bun's default argon2id cost (64 MiB), as hashes made before the cost was set.
      const old = await Bun.password.hash(PASSWORD, { algorithm: "argon2id" });
      expect(hashIsCurrent(old)).toBe(false);
      const { account } = (await store.findCredentials(user.email))!;
      await store.rehashPassword(account.id, old);

      const res = await post("/auth/login", { email: user.email, password: PASSWORD });
      expect(res.status).toBe(200);
      const rehashed = await stored();
      expect(rehashed).not.toBe(old);
      expect(hashIsCurrent(rehashed)).toBe(true);
      expect(await Bun.password.verify(PASSWORD, rehashed)).toBe(true);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD })).status).toBe(200);
    });

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
});

describeEachDialect("sessions behind https, under BASE_PATH, with free credits off", (dialect) => {
  const gateway = useGateway(dialect, { BASE_PATH: "/api", PUBLIC_URL: "https://gateway.example.com", FREE_CREDITS_USD: "0" });

  test("the cookie is Secure, scoped to the base path, and the public origin may write", async () => {
    const res = await request(gateway().url, "POST", "/auth/signup", { email: uniqueEmail(), password: PASSWORD }, {
      origin: "https://gateway.example.com",
    });
    expect(res.status).toBe(201);
    const cookie = res.headers.getSetCookie()[0] ?? "";
    expect(cookie).toContain("; Path=/api; HttpOnly; SameSite=Lax; Secure; Max-Age=");
    expect(res.headers.getSetCookie()[1]).toStartWith("gw_device=");
    expect(res.headers.getSetCookie()[1]).toContain("; Path=/api/auth; HttpOnly; SameSite=Lax; Secure; Max-Age=31536000;");
    const user = browserWith(gateway().url, "", cookie.split(";")[0]!);
    expect((await readJson(await user.send("GET", "/account"))).balanceUsd).toBe("0.000000");
    const logout = await user.send("POST", "/auth/logout", undefined, { origin: "https://gateway.example.com" });
    expect(logout.headers.get("set-cookie")).toBe(
      "gw_session=; Path=/api; HttpOnly; SameSite=Lax; Secure; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    );
  });
});
