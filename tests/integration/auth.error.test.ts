import { describe, expect, test } from "bun:test";
import { ip, useAuthGateway } from "../support/auth.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { PASSWORD, request, signUpUser, uniqueEmail } from "../support/session.ts";

describeEachDialect("sign-up, sign-in and sessions: refusals", (dialect) => {
  const { gateway, post } = useAuthGateway(dialect);

  test.each([
    ["a malformed e-mail", { email: "not-an-email", password: PASSWORD }, "email must be a valid e-mail address"],
    ["a missing e-mail", { password: PASSWORD }, "email is required and must be a string"],
    ["a zero-width space in the e-mail", { email: "alice\u200b@example.com", password: PASSWORD }, "email must not contain invisible or formatting characters"],
    ["a right-to-left override in the e-mail", { email: "alice\u202e@example.com", password: PASSWORD }, "email must not contain invisible or formatting characters"],
    ["a Cyrillic letter among Latin ones", { email: "\u0430lice@example.com", password: PASSWORD }, "email must not mix scripts (such as Latin and Cyrillic) in one part"],
    ["a Greek letter in the domain", { email: "alice@ex\u03b1mple.com", password: PASSWORD }, "email must not mix scripts (such as Latin and Cyrillic) in one part"],
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

  test("a look-alike of an account's e-mail makes no account: sign-up 400, sign-in 401, forgot the usual 200", async () => {
    const email = uniqueEmail("alice");
    await signUpUser(gateway().url, email, { "x-forwarded-for": ip() });
    for (const lookAlike of [email.replace("@", "\u200b@"), `\u0430${email.slice(1)}`]) {
      expect((await post("/auth/signup", { email: lookAlike, password: PASSWORD })).status).toBe(400);
      expect((await post("/auth/login", { email: lookAlike, password: PASSWORD })).status).toBe(401);
      const forgot = await post("/auth/password/forgot", { email: lookAlike });
      expect({ status: forgot.status, body: await readJson(forgot) }).toEqual({ status: 200, body: { success: true } });
      expect(await gateway().store.findAccountByEmail(lookAlike)).toBeNull();
    }
  });

  test("a taken e-mail answers 409, whatever its case", async () => {
    const email = uniqueEmail("taken");
    await signUpUser(gateway().url, email, { "x-forwarded-for": ip() });
    const res = await post("/auth/signup", { email: email.toUpperCase(), password: "another password" });
    expect(res.status).toBe(409);
    expect(await readJson(res)).toEqual({ error: "Email already registered" });
  });

  describe("login", () => {
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
