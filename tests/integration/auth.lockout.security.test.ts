// Sign-in guessing is bounded without letting the guesser lock the owner out (device cookies):
// failures with a valid device cookie count on that device; the others per (e-mail, IP), per IP
// and, with a larger ceiling, per e-mail. Whatever fills those never refuses the owner's device.
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
  const POOL_FULL = /^Too many failed sign-in attempts for this e-mail from devices it has not signed in on\. Sign in from one it has, or try again in/;
  /** Signs in from a new address and returns the device cookie it is given, as `gw_device=…`. */
  const signInDevice = async (email: string) => {
    const res = await post("/auth/login", { email, password: PASSWORD });
    expect(res.status).toBe(200);
    return res.headers.getSetCookie().find((c) => c.startsWith("gw_device="))!.split(";")[0]!;
  };
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

  describe("device cookies", () => {
    test("a sign-in sets a long-lived device cookie for the sign-in endpoints only, HttpOnly", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), from(ip()));
      const res = await post("/auth/login", { email: user.email, password: PASSWORD });
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith("gw_device="));
      expect(cookie).toMatch(/^gw_device=[A-Za-z0-9_-]{43}; Path=\/auth; HttpOnly; SameSite=Lax; Max-Age=31536000; Expires=/);
    });

    test("an attacker at many addresses fills the e-mail's pool; the owner's device signs in at once, from a new address or the attacker's", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), from(ip()));
      const device = await signInDevice(user.email);
      const attacker = from(ip());
      for (let i = 0; i < 5; i++) expect((await post("/auth/login", { email: user.email, password: "guess" }, attacker)).status).toBe(401);
      for (let i = 0; i < 5; i++) expect((await post("/auth/login", { email: uniqueEmail("x"), password: "guess" }, attacker)).status).toBe(401);
      for (let i = 0; i < 20; i++) expect((await post("/auth/login", { email: user.email, password: "guess" })).status).toBe(401);
      await expectThrottled(await post("/auth/login", { email: user.email, password: "guess" }), POOL_FULL);
      await expectThrottled(await post("/auth/login", { email: user.email, password: PASSWORD }, attacker), /from this address/);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD }, { cookie: device })).status).toBe(200);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD }, { ...attacker, cookie: device })).status).toBe(200);
      // Without its cookie, from a new address, the owner is slowed as the attacker is.
      await expectThrottled(await post("/auth/login", { email: user.email, password: PASSWORD }), POOL_FULL);
    });

    test("a device cookie helps only the account it was issued for", async () => {
      const owner = await signUpUser(gateway().url, uniqueEmail(), from(ip()));
      const victim = await signUpUser(gateway().url, uniqueEmail(), from(ip()));
      const ownersDevice = await signInDevice(owner.email);
      for (let i = 0; i < 25; i++) expect((await post("/auth/login", { email: victim.email, password: "guess" })).status).toBe(401);
      await expectThrottled(await post("/auth/login", { email: victim.email, password: PASSWORD }, { cookie: ownersDevice }), POOL_FULL);
      await expectThrottled(await post("/auth/login", { email: victim.email, password: PASSWORD }, { cookie: "gw_device=forged" }), POOL_FULL);
    });

    test("wrong passwords on a known device count on that device alone: 10, then it waits, and the pool is untouched", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), from(ip()));
      const device = { cookie: await signInDevice(user.email) };
      for (let i = 0; i < 10; i++) expect((await post("/auth/login", { email: user.email, password: "guess" }, device)).status).toBe(401);
      await expectThrottled(await post("/auth/login", { email: user.email, password: PASSWORD }, device), /on this device/);
      expect((await post("/auth/login", { email: user.email, password: PASSWORD })).status).toBe(200);
    });
  });

  describe("wrong two-factor codes", () => {
    test("5 per IP, 10 per e-mail; the owner's code from its device signs in at once, from the attacker's address too", async () => {
      const user = await signUpUser(gateway().url, uniqueEmail(), from(ip()));
      const device = await signInDevice(user.email);
      const { secret } = await readJson(await user.send("POST", "/auth/totp/setup"));
      expect((await user.send("POST", "/auth/totp/enable", { code: totpCode(secret, Date.now()) })).status).toBe(200);
      const guess = { email: user.email, password: PASSWORD, code: "000000" };
      const attacker = from(ip());
      for (let i = 0; i < 5; i++) expect((await post("/auth/login", guess, attacker)).status).toBe(401);
      await expectThrottled(await post("/auth/login", guess, attacker), /^Too many failed two-factor codes for this e-mail from this address/);
      for (let i = 0; i < 5; i++) expect((await post("/auth/login", guess)).status).toBe(401);
      await expectThrottled(await post("/auth/login", guess), /^Too many failed two-factor codes for this e-mail from devices it has not signed in on/);
      const code = totpCode(secret, Date.now() + 30_000);
      // Without its device, the owner waits as the attacker does.
      await expectThrottled(await post("/auth/login", { ...guess, code }), /two-factor codes for this e-mail from devices/);
      expect((await post("/auth/login", { ...guess, code }, { ...attacker, cookie: device })).status).toBe(200);
    });
  });
});
