// Sign-in guessing is bounded without letting the guesser lock the owner out: failures count
// per (e-mail, IP) and, with a larger ceiling, per e-mail; an IP the owner signed in from
// before is not held to the ceiling.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { totpCode } from "../../src/core/accounts/totp.ts";
import { ip, useAuthGateway } from "../support/auth.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { PASSWORD, signUpUser, uniqueEmail } from "../support/session.ts";

setDefaultTimeout(60_000); // dozens of argon2 verifications per test

const THROTTLED = { error: "Too many sign-in attempts. Please try again later." };

describeEachDialect("sign-in lockout", (dialect) => {
  const { gateway, post } = useAuthGateway(dialect);
  const from = (address: string) => ({ "x-forwarded-for": address });
  const expectThrottled = async (res: Response) => {
    expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 429, body: THROTTLED });
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
  };

  describe("wrong passwords", () => {
    test("12 from one IP do not lock the owner out: the right password from another IP signs in", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail("brute"), from(ip()));
      const attacker = from(ip());
      const statuses = [];
      for (let i = 0; i < 12; i++) statuses.push((await post("/auth/login", { email: user.email, password: "guess" }, attacker)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD }, from(ip()))).status).toBe(200);
    });

    test("5 from one IP refuse that IP for that e-mail, even the right password; other e-mails from it go on", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), from(ip()));
      const attacker = from(ip());
      for (let i = 0; i < 5; i++) expect((await post("/auth/login", { email: user.email, password: "guess" }, attacker)).status).toBe(401);
      await expectThrottled(await post("/auth/login", { email: user.email.toUpperCase(), password: PASSWORD }, attacker));
      expect((await post("/auth/login", { email: uniqueEmail("other"), password: "guess" }, attacker)).status).toBe(401);
    });

    test("right passwords are not failures: six sign-ins in a row from one IP all succeed", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), from(ip()));
      const home = from(ip());
      for (let i = 0; i < 6; i++) expect((await post("/auth/login", { email: user.email, password: PASSWORD }, home)).status).toBe(200);
    });

    test("spread over many IPs they stop at 25 per e-mail; an IP the owner signed in from still signs in", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), from(ip()));
      const home = from(ip());
      expect((await post("/auth/login", { email: user.email, password: PASSWORD }, home)).status).toBe(200);
      for (let i = 0; i < 25; i++) expect((await post("/auth/login", { email: user.email, password: "guess" })).status).toBe(401);
      await expectThrottled(await post("/auth/login", { email: user.email, password: "guess" }));
      await expectThrottled(await post("/auth/login", { email: user.email, password: PASSWORD }));
      expect((await post("/auth/login", { email: user.email, password: PASSWORD }, home)).status).toBe(200);
    });
  });

  describe("wrong two-factor codes", () => {
    test("5 per IP, 10 per e-mail; the owner's code from an IP it signed in from still signs in", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), from(ip()));
      const home = from(ip());
      expect((await post("/auth/login", { email: user.email, password: PASSWORD }, home)).status).toBe(200);
      const { secret } = await readJson(await user.send("POST", "/auth/totp/setup"));
      expect((await user.send("POST", "/auth/totp/enable", { code: totpCode(secret, Date.now()) })).status).toBe(200);
      const guess = { email: user.email, password: PASSWORD, code: "000000" };
      const attacker = from(ip());
      for (let i = 0; i < 5; i++) expect((await post("/auth/login", guess, attacker)).status).toBe(401);
      await expectThrottled(await post("/auth/login", guess, attacker));
      for (let i = 0; i < 5; i++) expect((await post("/auth/login", guess)).status).toBe(401);
      await expectThrottled(await post("/auth/login", guess));
      const code = totpCode(secret, Date.now() + 30_000);
      expect((await post("/auth/login", { ...guess, code }, home)).status).toBe(200);
    });
  });
});
