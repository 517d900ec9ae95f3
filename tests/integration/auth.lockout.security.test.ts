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

/** Says why, and the wait Retry-After gives, in minutes. */
const THROTTLED = /^Too many failed (sign-in attempts|two-factor codes) .+ [Tt]ry again in (1[0-5]|[1-9]) minutes?\.$/;

describeEachDialect("sign-in lockout", (dialect) => {
  const { gateway, post } = useAuthGateway(dialect);
  const from = (address: string) => ({ "x-forwarded-for": address });
  const expectThrottled = async (res: Response, message = THROTTLED) => {
    const body = await readJson(res);
    expect({ status: res.status, error: typeof body.error }).toEqual({ status: 429, error: "string" });
    expect(body.error).toMatch(message);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // The minutes the message names are Retry-After's, rounded up.
    expect(body.error).toContain(`in ${Math.ceil(retryAfter / 60)} minute`);
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

  describe("per address (an office behind one NAT)", () => {
    test("successful sign-ins do not count: 12 sign-ins from one address, then it still has its 10 failures", async () => {
      const office = from(ip());
      const people = [await signUpUser(gateway().url, uniqueEmail("office"), from(ip())), await signUpUser(gateway().url, uniqueEmail("office"), from(ip()))];
      for (let i = 0; i < 12; i++) {
        expect((await post("/auth/login", { email: people[i % 2]!.email, password: PASSWORD }, office)).status).toBe(200);
      }
      for (let i = 0; i < 10; i++) expect((await post("/auth/login", { email: uniqueEmail("typo"), password: "guess" }, office)).status).toBe(401);
      const refused = await post("/auth/login", { email: uniqueEmail("typo"), password: "guess" }, office);
      await expectThrottled(refused, /^Too many failed sign-in attempts from this address\. Try again in (1[0-5]|[1-9]) minutes?\.$/);
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
