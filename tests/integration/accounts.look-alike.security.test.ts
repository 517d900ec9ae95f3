// One account per confusable skeleton (docs/decisions.md, "Look-alike e-mails"): an address a
// reader could take for an account's, because it differs by a same-script look-alike, a `+tag`
// or a punycode domain, is answered as a taken address, and it never signs in to that account.
import { expect, test } from "bun:test";
import { ip, useAuthGateway } from "../support/auth.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { PASSWORD, signUpUser } from "../support/session.ts";

let n = 0;
/** An address of the form alice-<unique>@<domain>, unique to the run, spelled with `a` and `l` to be mimicked. */
const alice = (domain = "example.com") => `alice-${process.pid}-${++n}@${domain}`;

const LOOK_ALIKES: [string, (email: string) => string][] = [
  ["a dotless ı", (email) => email.replace("alice", "al\u0131ce")],
  ["a Latin small capital A", (email) => email.replace("alice", "\u1d00lice")],
  ["a Latin alpha", (email) => email.replace("alice", "\u0251lice")],
  ["a +tag", (email) => email.replace("@", "+promo@")],
  ["a punycode domain that shows as its look-alike (a Cyrillic е)", (email) => email.replace("@example.com", "@xn--xample-2of.com")],
];

describeEachDialect("look-alike e-mails: one account per skeleton", (dialect) => {
  const { gateway, post } = useAuthGateway(dialect);

  test.each(LOOK_ALIKES)("sign-up with %s of an account's address answers as a taken address does", async (_title, lookAlike) => {
    const email = alice();
    await signUpUser(gateway().url, email, { "x-forwarded-for": ip() });
    const res = await post("/auth/signup", { email: lookAlike(email), password: "another password" });
    expect({ status: res.status, cookie: res.headers.get("set-cookie"), body: await readJson(res) })
      .toEqual({ status: 409, cookie: null, body: { error: "Email already registered" } });
    expect(await gateway().store.findAccountByEmail(lookAlike(email))).toBeNull();
  });

  test.each(LOOK_ALIKES)("sign-in with %s of an account's address and its password answers 401", async (_title, lookAlike) => {
    const email = alice();
    await signUpUser(gateway().url, email, { "x-forwarded-for": ip() });
    const res = await post("/auth/login", { email: lookAlike(email), password: PASSWORD });
    expect({ status: res.status, cookie: res.headers.get("set-cookie"), body: await readJson(res) })
      .toEqual({ status: 401, cookie: null, body: { error: "Invalid email or password" } });
  });

  test("the look-alike signed up first keeps the address's key: the plain address is then the taken one", async () => {
    const email = alice();
    await signUpUser(gateway().url, email.replace("alice", "al\u0131ce"), { "x-forwarded-for": ip() });
    const res = await post("/auth/signup", { email, password: PASSWORD });
    expect(res.status).toBe(409);
  });

  test("addresses that differ to a reader still make accounts of their own", async () => {
    const email = alice();
    await signUpUser(gateway().url, email, { "x-forwarded-for": ip() });
    for (const other of [email.replace("alice", "alicia"), email.replace("example.com", "example.org"), email.replace("alice", "a.lice")]) {
      expect((await post("/auth/signup", { email: other, password: PASSWORD })).status).toBe(201);
    }
  });
});
