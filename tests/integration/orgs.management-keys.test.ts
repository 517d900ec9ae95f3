// An organization's management keys, through HTTP on both databases: a key acts with its
// maker's role at the moment of use, never more. A maker demoted below admin or removed takes
// the key's power away at once; removal revokes the key with the person's other keys.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { startFakeStripe, stripeEnv } from "../support/fake-stripe.ts";
import { readJson } from "../support/http.ts";
import { linkToken } from "../support/mail.ts";
import { verifyEmail } from "../support/accounts.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";
import { issueKey, parseNewKey } from "../../src/core/keys/rules.ts";

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());

describeEachDialect("an organization's management key", (dialect) => {
  const fake = startFakeUpstream();
  const stripe = startFakeStripe();
  afterAll(() => Promise.all([fake.stop(), stripe.stop()]));
  const gateway = useGateway(dialect, { ...providerEnv(fake), ...stripeEnv(stripe), SMTP_URL: smtp.url });
  let owner: Browser;
  let member: Browser;
  let orgId: string;
  const url = () => gateway().url;
  const person = async (usd = "5") => {
    const browser = await signUpUser(url());
    await verifyEmail(gateway().store, browser.email, usd);
    return browser;
  };
  const userId = async (b: Browser) => (await gateway().store.findAccountByEmail(b.email))!.id;
  const join = async (who: Browser, role: string) => {
    expect((await owner.send("POST", `/orgs/${orgId}/invitations`, { email: who.email, role })).status).toBe(201);
    const token = await linkToken(smtp, who.email, "invitations/accept");
    expect((await who.send("POST", "/invitations/accept", { token })).status).toBe(200);
  };
  const keysOf = async (b: Browser) => (await readJson(await b.send("GET", `/keys/generate?org=${orgId}`))).keys as { id: string; name: string; status: string }[];
  /** A script's request with `key` in place of a session. */
  const script = (key: string, method: string, path: string, body?: unknown) =>
    fetch(`${url()}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** Someone who joins as `role` and makes a management key for the organization. */
  const makerWithKey = async (role: string) => {
    const maker = await person();
    await join(maker, role);
    const made = await readJson(await maker.send("POST", `/keys/generate?org=${orgId}`, { name: `script of ${maker.email}`, management: true }));
    expect(made.key).toMatch(/^gw-mgmt-/);
    const { id } = (await keysOf(maker)).find((k) => k.name === `script of ${maker.email}`)!;
    return { maker, key: made.key as string, id };
  };
  /** The member's own key, which an admin's script could edit and rotate. */
  const memberKey = async () => {
    const name = `member key ${crypto.randomUUID()}`;
    const { key } = await readJson(await member.send("POST", `/keys/generate?org=${orgId}`, { name }));
    return { key: key as string, id: (await keysOf(member)).find((k) => k.name === name)!.id };
  };
  /** Every account endpoint an admin's script reaches, as [method, path, body]. */
  const everyEndpoint = (otherKeyId: string): [string, string, unknown][] => [
    ["GET", "/account", undefined],
    ["GET", "/account/usage", undefined],
    ["GET", "/usage/export", undefined],
    ["GET", "/account/spend", undefined],
    ["GET", "/account/purchases", undefined],
    ["GET", "/keys/generate", undefined],
    ["POST", "/checkout", { packId: "builder" }],
    ["PATCH", "/settings/spend-safety-limit", { limit: 1 }],
    ["PATCH", `/keys/${otherKeyId}`, { creditLimitUsd: 1000 }],
    ["POST", `/keys/${otherKeyId}/rotate`, undefined],
    ["POST", "/keys/generate", { name: "spends the organization's balance" }],
  ];
  const statuses = async (key: string, otherKeyId: string) => {
    const answers: Record<string, number> = {};
    for (const [method, path, body] of everyEndpoint(otherKeyId)) answers[`${method} ${path}`] = (await script(key, method, path, body)).status;
    return answers;
  };
  const all = (otherKeyId: string, status: number) => Object.fromEntries(everyEndpoint(otherKeyId).map(([m, p]) => [`${m} ${p}`, status]));

  beforeAll(async () => {
    owner = await person("20");
  });
  // An organization of its own for each test: each makes its keys under the hourly limit on making keys.
  beforeEach(async () => {
    member = await person();
    orgId = (await readJson(await owner.send("POST", "/orgs", { name: "Acme" }))).id;
    const transfer = await owner.send("POST", `/orgs/${orgId}/transfers`, { usd: "1", idempotencyKey: crypto.randomUUID() });
    expect(transfer.status).toBe(200);
    await join(member, "member");
  });

  test("an admin's key reaches every account endpoint while its maker is an admin", async () => {
    const { key } = await makerWithKey("admin");
    const other = await memberKey();
    const answers = await statuses(key, other.id);
    expect(Object.values(answers).every((s) => s === 200)).toBe(true);
    expect(await readJson(await script(key, "GET", "/account"))).toMatchObject({ organization: { id: orgId, role: "admin" } });
  });

  test("its maker demoted to member: at once refused on every account endpoint, and nothing changed", async () => {
    const { maker, key } = await makerWithKey("admin");
    const other = await memberKey();
    expect((await owner.send("PATCH", `/orgs/${orgId}/members/${await userId(maker)}`, { role: "member" })).status).toBe(200);
    expect(await statuses(key, other.id)).toEqual(all(other.id, 401));
    expect(await readJson(await script(key, "GET", "/account"))).toEqual({ error: "Unauthorized" });
    // The member's key was neither edited nor rotated, and no organization key was made.
    expect((await postChat(url(), other.key, hello())).status).toBe(200);
    const listed = (await readJson(await owner.send("GET", `/keys/generate?org=${orgId}`))).keys as { id: string; name: string; creditLimitUsd: string | null }[];
    expect(listed.find((k) => k.id === other.id)?.creditLimitUsd).toBeNull();
    expect(listed.some((k) => k.name === "spends the organization's balance")).toBe(false);
    expect((await readJson(await owner.send("GET", `/account?org=${orgId}`))).spendSafetyLimit).not.toBe(1);
    // Its power is its maker's at the moment of use: made an admin again, the script works again.
    expect((await owner.send("PATCH", `/orgs/${orgId}/members/${await userId(maker)}`, { role: "admin" })).status).toBe(200);
    expect((await script(key, "GET", "/usage/export")).status).toBe(200);
  });

  test("its maker removed: the removal revokes it and lists it, and it answers 401 everywhere at once", async () => {
    const { maker, key, id } = await makerWithKey("admin");
    const other = await memberKey();
    const removed = await readJson(await owner.send("DELETE", `/orgs/${orgId}/members/${await userId(maker)}`));
    expect(removed.revokedKeys.map((k: { id: string; status: string }) => [k.id, k.status])).toEqual([[id, "revoked"]]);
    expect(await statuses(key, other.id)).toEqual(all(other.id, 401));
    expect((await postChat(url(), other.key, hello())).status).toBe(200);
    const audit = (await readJson(await owner.send("GET", `/account/audit?org=${orgId}`))).events as { type: string; detail: string }[];
    expect(audit.some((e) => e.type === "member_removed" && e.detail.includes(`${maker.email} removed; 1 key(s) revoked`))).toBe(true);
  });

  test("an owner's key, its maker demoted to admin, acts as an admin", async () => {
    const { maker, key } = await makerWithKey("owner");
    expect((await readJson(await script(key, "GET", "/account"))).organization).toEqual({ id: orgId, name: "Acme", role: "owner" });
    expect((await owner.send("PATCH", `/orgs/${orgId}/members/${await userId(maker)}`, { role: "admin" })).status).toBe(200);
    expect((await readJson(await script(key, "GET", "/account"))).organization).toEqual({ id: orgId, name: "Acme", role: "admin" });
    expect((await script(key, "GET", "/usage/export")).status).toBe(200);
  });

  test("the operator's key (made with the CLI, no maker) acts as an admin, and still does once rotated", async () => {
    const fields = parseNewKey({ name: "operator's script" }, Date.now());
    if (!fields.ok) throw new Error(fields.reason);
    const { key, secret } = await issueKey(gateway().store, { accountId: orgId, fields: fields.value, kind: "management", origin: "cli", now: Date.now(), ip: null });
    expect((await readJson(await script(secret, "GET", "/account"))).organization).toEqual({ id: orgId, name: "Acme", role: "admin" });
    const rotated = await readJson(await owner.send("POST", `/keys/${key.id}/rotate?org=${orgId}`));
    expect(rotated.key).toMatch(/^gw-mgmt-/);
    expect((await script(secret, "GET", "/account")).status).toBe(401);
    expect((await readJson(await script(rotated.key, "GET", "/account"))).organization).toEqual({ id: orgId, name: "Acme", role: "admin" });
  });

  test("a member cannot make one", async () => {
    const res = await member.send("POST", `/keys/generate?org=${orgId}`, { name: "mine", management: true });
    expect(res.status).toBe(403);
    expect(await readJson(res)).toEqual({ error: "Forbidden" });
  });

  test("a personal management key is unaffected by its maker's roles in organizations", async () => {
    const maker = await person();
    await join(maker, "admin");
    const { key } = await readJson(await maker.send("POST", "/keys/generate", { name: "personal script", management: true }));
    expect((await owner.send("DELETE", `/orgs/${orgId}/members/${await userId(maker)}`)).status).toBe(200);
    const account = await readJson(await script(key, "GET", "/account"));
    expect(account).toMatchObject({ email: maker.email });
    expect(account).not.toHaveProperty("organization");
    expect((await script(key, "GET", "/usage/export")).status).toBe(200);
  });
});
