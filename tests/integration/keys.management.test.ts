// Management keys (gw-mgmt-…), through HTTP: a script manages an account's API keys and reads
// its spend without a browser, and cannot reach what proves who a person is.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { verifyEmail } from "../support/accounts.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

const MANAGEMENT_SECRET = /^gw-mgmt-[0-9A-Za-z]{48}$/;

describeEachDialect("a management key", (dialect) => {
  const fake = startFakeUpstream();
  afterAll(() => fake.stop());
  const gateway = useGateway(dialect, providerEnv(fake));
  let owner: Browser;
  let mgmt: string;
  /** A script's request: the management key, no cookie; a foreign Origin changes nothing for it. */
  const script = (method: string, path: string, body?: unknown, key = mgmt, origin: Record<string, string> = { origin: "https://elsewhere.example" }) =>
    fetch(`${gateway().url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...origin, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    owner = await signUpUser(gateway().url);
    await verifyEmail(gateway().store, owner.email);
    const created = await readJson(await owner.send("POST", "/keys/generate", { name: "provisioning", management: true }));
    expect(created).toMatchObject({ name: "provisioning", management: true });
    expect(created.key).toMatch(MANAGEMENT_SECRET);
    mgmt = created.key;
  });

  test("creates, lists, edits, rotates and revokes the account's API keys", async () => {
    const created = await readJson(await script("POST", "/keys/generate", { name: "customer 42", creditLimitUsd: 5, allowedModels: ["gpt-4.1-nano"] }));
    expect(created).toMatchObject({ name: "customer 42", credit_limit_usd: 5, allowed_models: ["gpt-4.1-nano"] });
    expect(created).not.toHaveProperty("management");
    expect(created.key).toMatch(/^gw-[0-9A-Za-z]{48}$/);
    expect((await postChat(gateway().url, created.key, hello("gpt-4.1-nano"))).status).toBe(200);

    const listed = (await readJson(await script("GET", "/keys/generate"))).keys;
    expect(listed.map((k: { name: string }) => k.name)).toEqual(["customer 42"]);
    const { id } = listed[0];
    expect(await readJson(await script("PATCH", `/keys/${id}`, { name: "customer 42 (pro)" }))).toMatchObject({ name: "customer 42 (pro)" });
    const rotated = await readJson(await script("POST", `/keys/${id}/rotate`));
    expect(rotated.key).toMatch(/^gw-[0-9A-Za-z]{48}$/);
    const [replacement] = (await readJson(await script("GET", "/keys/generate"))).keys;
    expect((await script("DELETE", `/keys/${replacement.id}`)).status).toBe(200);
    expect((await postChat(gateway().url, rotated.key, hello("gpt-4.1-nano"))).status).toBe(401);
  });

  test("is listed with when it was last used", async () => {
    await script("GET", "/account");
    const listed = (await readJson(await owner.send("GET", "/keys/generate"))).keys.find((k: { name: string }) => k.name === "provisioning");
    expect(listed.lastUsedAt).toEqual(expect.stringMatching(/Z$/));
  });

  test("reads the account, its spend, usage and purchases, exports usage and changes settings", async () => {
    expect(await readJson(await script("GET", "/account"))).toMatchObject({ email: owner.email });
    for (const path of ["/account/usage", "/account/spend", "/account/spend/models", "/account/purchases", "/usage/export"]) {
      expect({ path, status: (await script("GET", path)).status }).toEqual({ path, status: 200 });
    }
    const threshold = await script("PATCH", "/settings/alert-threshold", { threshold: 2 });
    expect(await readJson(threshold)).toEqual({ success: true, threshold: 2 });
    // Purchases start the same way (503 here only because no Stripe price is configured) …
    const checkout = await script("POST", "/checkout", { packId: "builder" });
    expect(checkout.status).toBe(503);
    // … and a webhook endpoint is set like any other setting.
    expect((await script("PUT", "/settings/webhook", { url: "https://8.8.8.8/hooks" })).status).toBe(200);
    expect((await script("DELETE", "/settings/webhook")).status).toBe(200);
  });

  test.each([
    ["POST", "/auth/password/change", { currentPassword: "x", newPassword: "yyyyyyyyyyyy" }],
    ["POST", "/auth/totp/setup", undefined],
    ["POST", "/auth/totp/disable", { code: "000000" }],
    ["GET", "/auth/sessions", undefined],
    ["POST", "/auth/sessions/revoke-others", undefined],
    ["GET", "/account/security", undefined],
    ["GET", "/account/audit", undefined],
  ])("is no sign-in for %s %s: 401", async (method, path, body) => {
    // Without an Origin: with a foreign one these writes are refused (403) before sign-in is even asked.
    const res = await script(method, path, body, mgmt, {});
    expect(res.status).toBe(401);
    expect(await readJson(res)).toEqual({ error: "Unauthorized" });
  });

  test("cannot make a management key, nor see or touch one", async () => {
    const res = await script("POST", "/keys/generate", { name: "another", management: true });
    expect(res.status).toBe(403);
    expect(await readJson(res)).toEqual({ error: "A management key cannot create management keys" });
    const own = (await readJson(await owner.send("GET", "/keys/generate"))).keys.find((k: { management: boolean }) => k.management);
    expect((await script("PATCH", `/keys/${own.id}`, { name: "renamed" })).status).toBe(403);
    expect((await script("POST", `/keys/${own.id}/rotate`)).status).toBe(404);
    expect((await script("DELETE", `/keys/${own.id}`)).status).toBe(404);
    expect((await readJson(await owner.send("GET", "/keys/generate"))).keys.find((k: { id: string }) => k.id === own.id))
      .toMatchObject({ name: "provisioning", status: "active" });
  });

  test("is refused on /v1 with 401", async () => {
    const res = await postChat(gateway().url, mgmt, hello());
    expect(res.status).toBe(401);
    expect((await readJson(res)).error).toEqual({
      message: "A management key cannot call the API: send an API key (gw-…) instead", type: "authentication_error", code: "401",
    });
  });

  test("a management key with limits or allowlists is refused: they do not apply to it", async () => {
    const res = await owner.send("POST", "/keys/generate", { management: true, creditLimitUsd: 5 });
    expect(res.status).toBe(400);
    expect(await readJson(res)).toEqual({ error: "validation error", message: "creditLimitUsd does not apply to a management key" });
    const bad = await owner.send("POST", "/keys/generate", { management: "yes" });
    expect(await readJson(bad)).toEqual({ error: "validation error", message: "management must be true or false" });
  });

  test("what it does is in the account's audit log, and once revoked it opens nothing", async () => {
    const events = (await readJson(await owner.send("GET", "/account/audit"))).events as { type: string; detail: string }[];
    expect(events.some((e) => e.type === "key_created" && e.detail.includes('with management key "provisioning"'))).toBe(true);
    expect(events.some((e) => e.type === "key_created" && e.detail.startsWith('management key "provisioning"'))).toBe(true);

    const other = await readJson(await owner.send("POST", "/keys/generate", { name: "short-lived", management: true }));
    const { id } = (await readJson(await owner.send("GET", "/keys/generate"))).keys.find((k: { name: string }) => k.name === "short-lived");
    expect((await script("GET", "/account", undefined, other.key)).status).toBe(200);
    expect((await owner.send("DELETE", `/keys/${id}`)).status).toBe(200);
    const res = await script("GET", "/account", undefined, other.key);
    expect(res.status).toBe(401);
    expect(await readJson(res)).toEqual({ error: "Unauthorized" });
  });

  test("an API key is no management key on the account endpoints", async () => {
    const { key } = await readJson(await owner.send("POST", "/keys/generate", { name: "api" }));
    expect((await script("GET", "/account", undefined, key)).status).toBe(401);
  });
});
