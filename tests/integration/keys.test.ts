import { describe, expect, test } from "bun:test";
import { generateKeySecret, hashKey, keyPrefix } from "../../src/core/keys.ts";
import { nanos } from "../../src/core/money.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { request, signUpUser, type Browser } from "../support/session.ts";
import { useGateway, type TestGateway } from "../support/server.ts";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECRET = /^gw-[0-9A-Za-z]{48}$/;
const SHOWN_ONCE = "Store this key now: it is shown only once and cannot be retrieved later.";
const ROTATED = "The old key no longer works. Store the new key now: it is shown only once.";
const UNKNOWN_ID = "01900000-0000-7000-8000-000000000000";
const HOUR = 60 * 60 * 1000;

const generate = async (user: Browser, body: unknown = {}) => {
  const res = await user.send("POST", "/keys/generate", body);
  if (res.status !== 200) throw new Error(`generate answered ${res.status}: ${await res.text()}`);
  return readJson(res);
};
const list = async (user: Browser) => (await readJson(await user.send("GET", "/keys/generate"))).keys;
const listed = async (user: Browser, secret: string) => {
  const found = (await list(user)).find((k: { prefix: string }) => k.prefix === keyPrefix(secret));
  if (!found) throw new Error("key not in the list");
  return found;
};

/** A key written straight to the store, for states the API will not create (expired). */
async function storedKey(gateway: TestGateway, user: Browser, expiresAt: number) {
  const account = await gateway.store.findAccountByEmail(user.email);
  const secret = generateKeySecret();
  const key = await gateway.store.createKey({
    accountId: account!.id, name: "stored", prefix: keyPrefix(secret), hash: hashKey(secret), origin: "cli",
    expiresAt, creditLimit: nanos(3_000_000_000n), usdPerHour: null, requestsPerHour: null, now: Date.now(),
  });
  return key.id;
}

describeEachDialect("API keys", (dialect) => {
  const gateway = useGateway(dialect);
  const newUser = () => signUpUser(gateway().url);

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

    test("stores only the key's hash: the plaintext resolves through it and never appears in the list", async () => {
      const user = await newUser();
      const { key } = await generate(user);
      const found = await gateway().store.findKeyByHash(hashKey(key));
      expect(found?.account.id).toBe((await gateway().store.findAccountByEmail(user.email))?.id as string);
      const text = await (await user.send("GET", "/keys/generate")).text();
      expect(text).not.toContain(key);
      expect(text).not.toContain(hashKey(key));
    });

    test.each([
      [{ name: "" }, "name must be a non-empty string"],
      [{ name: 42 }, "name must be a non-empty string"],
      [{ expiresAt: "2020-01-01T00:00:00Z" }, "expiresAt must be in the future"],
      [{ expiresAt: "tomorrow" }, "expiresAt must be an ISO 8601 date-time with a time zone, such as 2030-01-31T00:00:00Z"],
      [{ creditLimitUsd: 0 }, "creditLimitUsd must be a positive number"],
      [{ creditLimitUsd: "5" }, "creditLimitUsd must be a positive number"],
      [{ rateLimitUsdPerHour: -1 }, "rateLimitUsdPerHour must be a positive number"],
      [{ rateLimitUsdPerHour: 0.001 }, "rateLimitUsdPerHour must have at most 2 decimal places"],
      [{ rateLimitRequestsPerHour: 1.5 }, "rateLimitRequestsPerHour must be a positive whole number"],
    ])("refuses %j with 400 validation error", async (body, message) => {
      const user = await newUser();
      const res = await user.send("POST", "/keys/generate", body);
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error: "validation error", message });
      expect(await list(user)).toEqual([]);
    });

    test.each([
      ["an array", [], "Request body must be a JSON object"],
      ["broken JSON", "{name:", "Request body is not valid JSON"],
    ])("refuses %s with 400", async (_title, body, error) => {
      const res = await (await newUser()).send("POST", "/keys/generate", body);
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error });
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

    test.each([
      [{ expiresAt: "2001-01-01T00:00:00Z" }, "expiresAt must be in the future"],
      [{ creditLimitUsd: 0 }, "creditLimitUsd must be a positive number"],
      [{ rateLimitUsdPerHour: -5 }, "rateLimitUsdPerHour must be a positive number"],
      [{ rateLimitRequestsPerHour: 0 }, "rateLimitRequestsPerHour must be a positive whole number"],
      [{ name: null }, "name must be a non-empty string"],
    ])("refuses %j with 400 validation error and changes nothing", async (body, message) => {
      const user = await newUser();
      const created = await generate(user, { creditLimitUsd: 1 });
      const before = await listed(user, created.key);
      const res = await user.send("PATCH", `/keys/${before.id}`, { name: "changed?", ...body });
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error: "validation error", message });
      expect(await listed(user, created.key)).toEqual(before);
    });

    test.each([["an unknown id", UNKNOWN_ID], ["an id that is not a UUID", "not-a-uuid"]])(
      "answers 403 Forbidden or key not found for %s",
      async (_title, id) => {
        const res = await (await newUser()).send("PATCH", `/keys/${id}`, { name: "x" });
        expect(res.status).toBe(403);
        expect(await readJson(res)).toEqual({ error: "Forbidden or key not found" });
      },
    );
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

    test("answers 404 for a revoked, unknown or malformed key id", async () => {
      const user = await newUser();
      const { id } = await listed(user, (await generate(user)).key);
      await user.send("POST", `/keys/${id}/rotate`);
      for (const target of [id, UNKNOWN_ID, "42"]) {
        const res = await user.send("POST", `/keys/${target}/rotate`);
        expect(res.status).toBe(404);
        expect(await readJson(res)).toEqual({ error: "Key not found or already revoked" });
      }
    });

    test("refuses an expired key with 400 and leaves it as it was", async () => {
      const user = await newUser();
      const id = await storedKey(gateway(), user, Date.now() - 1);
      const res = await user.send("POST", `/keys/${id}/rotate`);
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error: "Key has expired and cannot be rotated" });
      expect((await list(user)).map((k: { status: string }) => k.status)).toEqual(["expired"]);
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

    test.each([[UNKNOWN_ID], ["not-a-uuid"]])("answers 404 Key not found for %p", async (id) => {
      const user = await newUser();
      for (const path of [`/keys/${id}/revoke`, `/keys/${id}`]) {
        const res = await user.send("DELETE", path);
        expect(res.status).toBe(404);
        expect(await readJson(res)).toEqual({ error: "Key not found" });
      }
    });
  });

  test.each([
    ["PUT", "/keys/generate", "GET, POST"],
    ["GET", `/keys/${UNKNOWN_ID}`, "PATCH, DELETE"],
    ["GET", `/keys/${UNKNOWN_ID}/rotate`, "POST"],
    ["POST", `/keys/${UNKNOWN_ID}/revoke`, "DELETE"],
  ])("%s %s answers 405 naming %s", async (method, path, allowed) => {
    const res = await request(gateway().url, method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allowed);
  });
});
