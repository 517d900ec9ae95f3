// Cross-site request forgery: what a page on another site can make a browser send with the
// user's cookie is refused; the dashboard's own calls and non-browser JSON clients go on.
import { describe, expect, test } from "bun:test";
import { ip, useAuthGateway } from "../support/auth.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { PASSWORD, signUpUser, uniqueEmail, type Browser } from "../support/session.ts";

const FORBIDDEN = { status: 403, body: { error: "Forbidden" } };
const NOT_JSON = { status: 415, body: { error: "Content-Type must be application/json" } };

describeEachDialect("CSRF on cookie-authenticated writes and sign-in", (dialect) => {
  const { gateway, post } = useAuthGateway(dialect);
  const newUser = () => signUpUser(gateway().url, uniqueEmail(), { "x-forwarded-for": ip() });
  const answer = async (res: Response) => ({ status: res.status, body: await readJson(res) });
  /** A raw write with the user's cookie: the body sent as given, with exactly these headers. */
  const raw = (user: Browser, method: string, path: string, body: BodyInit | undefined, headers: Record<string, string>) =>
    fetch(`${gateway().url}${path}`, { method, body, headers: { cookie: user.cookie, ...headers } });
  const threshold = async (user: Browser) => (await readJson(await user.send("GET", "/account"))).alertThreshold;

  describe("the sender's origin", () => {
    test("a foreign Referer without Origin is refused, changing nothing", async () => {
      const user = await newUser();
      const res = await user.send("PATCH", "/settings/alert-threshold", { threshold: 42 }, { referer: "https://evil.example/page" });
      expect(await answer(res)).toEqual(FORBIDDEN);
      expect(await answer(await post("/auth/login", { email: user.email, password: PASSWORD }, { referer: "https://evil.example/" }))).toEqual(FORBIDDEN);
      expect(await threshold(user)).toBeNull();
    });

    test("the service's own host under another scheme is another origin", async () => {
      const user = await newUser();
      const host = new URL(gateway().url);
      for (const origin of [`https://${host.host}`, `ws://${host.host}`]) {
        expect(await answer(await user.send("PATCH", "/settings/alert-threshold", { threshold: 42 }, { origin }))).toEqual(FORBIDDEN);
      }
      const referer = `https://${host.host}/dashboard`;
      expect(await answer(await user.send("PATCH", "/settings/alert-threshold", { threshold: 42 }, { referer }))).toEqual(FORBIDDEN);
      expect(await threshold(user)).toBeNull();
    });

    test("the service's own Referer, without Origin, passes", async () => {
      const user = await newUser();
      for (const base of [gateway().config.publicUrl, gateway().url]) {
        const res = await user.send("PATCH", "/settings/alert-threshold", { threshold: 7 }, { referer: `${base}/dashboard/settings` });
        expect(res.status).toBe(200);
      }
    });
  });

  describe("the body's type", () => {
    test.each([
      ["text/plain (a form or a no-cors fetch)", "text/plain", '{"threshold": 42}'],
      ["text/plain with a charset", "text/plain;charset=UTF-8", '{"threshold": 42}'],
      ["a urlencoded form", "application/x-www-form-urlencoded", "threshold=42"],
      ["a multipart form", "multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="threshold"\r\n\r\n42\r\n--x--\r\n'],
      ["JSON under another type", "application/jsonp", '{"threshold": 42}'],
    ])("a cookie-authenticated write as %s is refused with 415, changing nothing", async (_title, type, body) => {
      const user = await newUser();
      expect(await answer(await raw(user, "PATCH", "/settings/alert-threshold", body, { "content-type": type }))).toEqual(NOT_JSON);
      expect(await threshold(user)).toBeNull();
    });

    test("a body with no type at all is refused too", async () => {
      const user = await newUser();
      const res = await raw(user, "PATCH", "/settings/alert-threshold", new TextEncoder().encode('{"threshold": 42}'), {});
      expect(await answer(res)).toEqual(NOT_JSON);
      expect(await threshold(user)).toBeNull();
    });

    test("sign-up and sign-in from a script read a JSON body whatever its type; a cross-site form is refused by its Origin", async () => {
      const user = await newUser();
      for (const type of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded"]) {
        const body = JSON.stringify({ email: uniqueEmail("script"), password: PASSWORD });
        const signup = await fetch(`${gateway().url}/auth/signup`, { method: "POST", body, headers: { "content-type": type, "x-forwarded-for": ip() } });
        expect(signup.status).toBe(201);
        const fromElsewhere = await fetch(`${gateway().url}/auth/login`, {
          method: "POST", body: JSON.stringify({ email: user.email, password: PASSWORD }),
          headers: { "content-type": type, origin: "https://evil.example", "x-forwarded-for": ip() },
        });
        expect(fromElsewhere.status).toBe(403);
      }
    });

    test("JSON with a charset, and body-less writes without a type, pass as the dashboard sends them", async () => {
      const user = await newUser();
      const json = await raw(user, "PATCH", "/settings/alert-threshold", '{"threshold": 3}', { "content-type": "Application/JSON; charset=utf-8" });
      expect(json.status).toBe(200);
      expect((await raw(user, "POST", "/keys/generate", undefined, {})).status).toBe(200);
      const [key] = (await readJson(await user.send("GET", "/keys/generate"))).keys;
      expect((await raw(user, "POST", `/keys/${key.id}/rotate`, undefined, {})).status).toBe(200);
      const [rotated] = (await readJson(await user.send("GET", "/keys/generate"))).keys;
      expect((await raw(user, "DELETE", `/keys/${rotated.id}/revoke`, undefined, {})).status).toBe(200);
      expect((await raw(user, "POST", "/auth/logout", undefined, {})).status).toBe(200);
    });
  });
});
