import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashKey, keyPrefix } from "../../src/core/keys/secret.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { generate, HOUR, list, listed, storedKey, useKeysGateway } from "../support/keys.ts";
import { verifyEmail } from "../support/accounts.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

describeEachDialect("one user's keys, seen from another's session", (dialect) => {
  const gateway = useGateway(dialect);
  let alice: Browser;
  let bob: Browser;
  let aliceKey: { id: string; secret: string; view: Record<string, unknown> };

  beforeAll(async () => {
    alice = await signUpUser(gateway().url);
    await verifyEmail(gateway().store, alice.email); // the free credits, for alice's chat requests
    bob = await signUpUser(gateway().url);
    const created = await readJson(await alice.send("POST", "/keys/generate", { name: "alice's", creditLimitUsd: 5 }));
    const view = (await readJson(await alice.send("GET", "/keys/generate"))).keys[0];
    aliceKey = { id: view.id, secret: created.key, view };
    await bob.send("POST", "/keys/generate", { name: "bob's" });
  });

  const aliceKeyIsUntouched = async () => {
    expect((await readJson(await alice.send("GET", "/keys/generate"))).keys).toEqual([aliceKey.view]);
  };

  test("are not in the other's list", async () => {
    const keys = (await readJson(await bob.send("GET", "/keys/generate"))).keys;
    expect(keys.map((k: { name: string }) => k.name)).toEqual(["bob's"]);
    expect(keys.map((k: { prefix: string }) => k.prefix)).not.toContain(keyPrefix(aliceKey.secret));
  });

  test("cannot be edited: 403 Forbidden or key not found, as for a key that does not exist", async () => {
    const res = await bob.send("PATCH", `/keys/${aliceKey.id}`, { name: "bob's now", creditLimitUsd: null });
    expect(res.status).toBe(403);
    expect(await readJson(res)).toEqual({ error: "Forbidden or key not found" });
    await aliceKeyIsUntouched();
  });

  test("cannot be rotated: 404 Key not found or already revoked", async () => {
    const res = await bob.send("POST", `/keys/${aliceKey.id}/rotate`);
    expect(res.status).toBe(404);
    expect(await readJson(res)).toEqual({ error: "Key not found or already revoked" });
    await aliceKeyIsUntouched();
  });

  test.each([["/revoke"], [""]])("cannot be revoked through DELETE /keys/{keyId}%s: 404 Key not found", async (suffix) => {
    const res = await bob.send("DELETE", `/keys/${aliceKey.id}${suffix}`);
    expect(res.status).toBe(404);
    expect(await readJson(res)).toEqual({ error: "Key not found" });
    await aliceKeyIsUntouched();
  });
});

describeEachDialect("one user's account, usage and settings, seen from another's session", (dialect) => {
  const fake = startFakeUpstream();
  afterAll(() => fake.stop());
  const gateway = useGateway(dialect, providerEnv(fake));
  let alice: Browser;
  let bob: Browser;
  let aliceAccount: Record<string, unknown>;

  beforeAll(async () => {
    alice = await signUpUser(gateway().url);
    await verifyEmail(gateway().store, alice.email); // the free credits, for alice's chat requests
    bob = await signUpUser(gateway().url);
    const { key } = await readJson(await alice.send("POST", "/keys/generate", {}));
    expect((await postChat(gateway().url, key, hello())).status).toBe(200);
    aliceAccount = await readJson(await alice.send("GET", "/account"));
  });

  test("the usage export and the dashboard's usage and spend hold only the caller's requests", async () => {
    const csvLines = async (user: Browser) => (await (await user.send("GET", "/usage/export")).text()).trim().split("\r\n");
    expect(await csvLines(alice)).toHaveLength(2);
    expect(await csvLines(bob)).toHaveLength(1); // the header alone
    expect((await readJson(await alice.send("GET", "/account/usage"))).usage).toHaveLength(1);
    expect((await readJson(await bob.send("GET", "/account/usage"))).usage).toEqual([]);
    expect((await readJson(await bob.send("GET", "/account/spend"))).last24Hours).toEqual({ spendUsd: "0.000000000", savedUsd: "0.000000000", requests: 0 });
  });

  test("GET /account and the settings act on the caller's account only", async () => {
    expect((await readJson(await bob.send("GET", "/account"))).email).toBe(bob.email);
    expect((await bob.send("PATCH", "/settings/alert-threshold", { threshold: 42 })).status).toBe(200);
    expect((await bob.send("PATCH", "/settings/spend-safety-limit", { limit: 0 })).status).toBe(200);
    expect(await readJson(await alice.send("GET", "/account"))).toEqual(aliceAccount);
  });
});

describeEachDialect("API keys: secrets and abuse", (dialect) => {
  const { gateway, newUser } = useKeysGateway(dialect);

  describe("POST /keys/generate", () => {
    test("stores only the key's hash: the plaintext resolves through it and never appears in the list", async () => {
      const user = await newUser();
      const { key } = await generate(user);
      const found = await gateway().store.findKeyByHash(hashKey(key));
      expect(found?.account.id).toBe((await gateway().store.findAccountByEmail(user.email))?.id as string);
      const text = await (await user.send("GET", "/keys/generate")).text();
      expect(text).not.toContain(key);
      expect(text).not.toContain(hashKey(key));
    });

    test("allows 5 keys per hour, then 429 rate_limit_exceeded; rotations and CLI keys do not count", async () => {
      const user = await newUser();
      const first = await generate(user);
      for (let i = 0; i < 4; i++) await generate(user);
      const refused = await user.send("POST", "/keys/generate", { name: "sixth" });
      expect(refused.status).toBe(429);
      expect(await readJson(refused)).toEqual({ error: "rate_limit_exceeded" });
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(HOUR / 1000);

      const { id } = await listed(user, first.key);
      expect((await user.send("POST", `/keys/${id}/rotate`)).status).toBe(200);
      expect((await list(user)).length).toBe(6);
      expect((await user.send("POST", "/keys/generate", {})).status).toBe(429);

      const other = await newUser();
      await storedKey(gateway(), other, Date.now() + HOUR);
      for (let i = 0; i < 5; i++) await generate(other);
      expect((await other.send("POST", "/keys/generate", {})).status).toBe(429);
    });
  });
});
