import { describe, expect, test } from "bun:test";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { generate, list, listed, storedKey, UNKNOWN_ID, useKeysGateway } from "../support/keys.ts";
import { request } from "../support/session.ts";

describeEachDialect("API keys: refusals", (dialect) => {
  const { gateway, newUser } = useKeysGateway(dialect);

  describe("POST /keys/generate", () => {
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
  });

  describe("PATCH /keys/{keyId}", () => {
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
