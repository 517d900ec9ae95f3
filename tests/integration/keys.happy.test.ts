import { describe, expect, test } from "bun:test";
import { hashKey } from "../../src/core/keys/secret.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { generate, ISO_MS, list, listed, ROTATED, SECRET, SHOWN_ONCE, storedKey, useKeysGateway } from "../support/keys.ts";

describeEachDialect("API keys: the happy path", (dialect) => {
  const { gateway, newUser } = useKeysGateway(dialect);

  describe("POST /keys/generate", () => {
    test("with no fields issues a key named Default Key, without expiry or limits", async () => {
      const user = await newUser();
      for (const body of [{}, undefined]) {
        const res = await user.send("POST", "/keys/generate", body);
        expect(res.status).toBe(200);
        expect(await readJson(res)).toEqual({
          key: expect.stringMatching(SECRET),
          name: "Default Key",
          expires_at: null,
          credit_limit_usd: null,
          rate_limit_usd_per_hour: null,
          rate_limit_requests_per_hour: null,
          message: SHOWN_ONCE,
        });
      }
    });

    test("echoes every field in snake_case, and the list shows the key in the spec's formats", async () => {
      const user = await newUser();
      const before = Date.now();
      const created = await generate(user, {
        name: "production",
        expiresAt: "2031-06-30T12:00:00+02:00",
        creditLimitUsd: 12.5,
        rateLimitUsdPerHour: 1.5,
        rateLimitRequestsPerHour: 60,
      });
      expect(created).toEqual({
        key: expect.stringMatching(SECRET),
        name: "production",
        expires_at: "2031-06-30T10:00:00.000Z",
        credit_limit_usd: 12.5,
        rate_limit_usd_per_hour: 1.5,
        rate_limit_requests_per_hour: 60,
        message: SHOWN_ONCE,
      });
      const keys = await list(user);
      expect(keys).toEqual([
        {
          id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
          name: "production",
          prefix: created.key.slice(0, 10),
          status: "active",
          createdAt: expect.stringMatching(ISO_MS),
          lastUsedAt: null,
          expiresAt: "2031-06-30T10:00:00.000Z",
          creditLimitUsd: "12.500000",
          rateLimitUsdPerHour: "1.50",
          rateLimitRequestsPerHour: 60,
          total_requests: 0,
          total_spend_usd: "0.000000",
        },
      ]);
      expect(Date.parse(keys[0].createdAt)).toBeGreaterThanOrEqual(before);
    });
  });

  describe("GET /keys/generate", () => {
    test("lists active, revoked and expired keys, newest first, with derived status", async () => {
      const user = await newUser();
      const revoked = await generate(user, { name: "old" });
      await user.send("DELETE", `/keys/${(await listed(user, revoked.key)).id}`);
      const expiredId = await storedKey(gateway(), user, Date.now() - 1);
      await generate(user, { name: "current" });
      const keys = await list(user);
      expect(keys.map((k: { name: string; status: string }) => [k.name, k.status])).toEqual([
        ["current", "active"],
        ["stored", "expired"],
        ["old", "revoked"],
      ]);
      expect(keys[1].id).toBe(expiredId);
      expect(keys[1].creditLimitUsd).toBe("3.000000");
    });

    test("is an empty list for a new user", async () => {
      const res = await (await newUser()).send("GET", "/keys/generate");
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual({ keys: [] });
    });
  });

  describe("PATCH /keys/{keyId}", () => {
    test("changes only the present fields and answers the list-view record", async () => {
      const user = await newUser();
      const created = await generate(user, { name: "a", creditLimitUsd: 10, rateLimitUsdPerHour: 2, rateLimitRequestsPerHour: 30 });
      const before = await listed(user, created.key);
      const res = await user.send("PATCH", `/keys/${before.id}`, { name: "renamed", rateLimitUsdPerHour: 2.25, ignored: true });
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual({ ...before, name: "renamed", rateLimitUsdPerHour: "2.25" });
      expect(await listed(user, created.key)).toEqual({ ...before, name: "renamed", rateLimitUsdPerHour: "2.25" });
    });

    test("clears optional values with null and sets an expiry", async () => {
      const user = await newUser();
      const created = await generate(user, { creditLimitUsd: 10, rateLimitUsdPerHour: 2, rateLimitRequestsPerHour: 30, expiresAt: "2031-01-01T00:00:00Z" });
      const { id } = await listed(user, created.key);
      const cleared = await readJson(
        await user.send("PATCH", `/keys/${id}`, { creditLimitUsd: null, rateLimitUsdPerHour: null, rateLimitRequestsPerHour: null, expiresAt: null }),
      );
      expect(cleared).toMatchObject({ expiresAt: null, creditLimitUsd: null, rateLimitUsdPerHour: null, rateLimitRequestsPerHour: null });
      const set = await readJson(await user.send("PATCH", `/keys/${id}`, { expiresAt: "2032-02-29T00:00:00Z" }));
      expect(set.expiresAt).toBe("2032-02-29T00:00:00.000Z");
    });
  });

  describe("POST /keys/{keyId}/rotate", () => {
    test("revokes the key at once and issues a replacement with its name, expiry and limits", async () => {
      const user = await newUser();
      const created = await generate(user, {
        name: "ci", expiresAt: "2031-01-01T00:00:00Z", creditLimitUsd: 7.25, rateLimitUsdPerHour: 0.5, rateLimitRequestsPerHour: 9,
      });
      const old = await listed(user, created.key);
      const res = await user.send("POST", `/keys/${old.id}/rotate`);
      expect(res.status).toBe(200);
      const rotated = await readJson(res);
      expect(rotated).toEqual({ key: expect.stringMatching(SECRET), message: ROTATED });
      expect(rotated.key).not.toBe(created.key);

      const replacement = await listed(user, rotated.key);
      expect(replacement).toEqual({
        ...old, id: replacement.id, prefix: rotated.key.slice(0, 10), createdAt: replacement.createdAt,
      });
      expect(replacement.id).not.toBe(old.id);
      expect((await listed(user, created.key)).status).toBe("revoked");
      expect((await gateway().store.findKeyByHash(hashKey(created.key)))?.key.revokedAt).not.toBeNull();
      expect((await gateway().store.findKeyByHash(hashKey(rotated.key)))?.key.revokedAt).toBeNull();
    });
  });

  describe("DELETE /keys/{keyId}/revoke and DELETE /keys/{keyId}", () => {
    test.each([["/revoke"], [""]])("DELETE /keys/{keyId}%s revokes once, answering the list-view record", async (suffix) => {
      const user = await newUser();
      const created = await generate(user, { name: "bye" });
      const before = await listed(user, created.key);
      const res = await user.send("DELETE", `/keys/${before.id}${suffix}`);
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual({ ...before, status: "revoked" });
      expect((await gateway().store.findKeyByHash(hashKey(created.key)))?.key.revokedAt).not.toBeNull();
      for (const again of ["/revoke", ""]) {
        const repeat = await user.send("DELETE", `/keys/${before.id}${again}`);
        expect(repeat.status).toBe(404);
        expect(await readJson(repeat)).toEqual({ error: "Key not found" });
      }
    });

    test("revokes an expired key", async () => {
      const user = await newUser();
      const id = await storedKey(gateway(), user, Date.now() - 1);
      const res = await user.send("DELETE", `/keys/${id}/revoke`);
      expect(res.status).toBe(200);
      expect((await readJson(res)).status).toBe("revoked");
    });
  });
});
