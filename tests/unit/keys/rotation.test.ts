import { describe, expect, test } from "bun:test";
import { replacedByRotation } from "../../../src/core/keys/rotation.ts";
import { nanos } from "../../../src/core/money.ts";
import type { ApiKey } from "../../../src/core/store.ts";

const T = Date.parse("2026-05-01T00:00:00Z");

const key = (id: string, fields: Partial<ApiKey>): ApiKey => ({
  id, accountId: "acc", name: "ci", prefix: "gw-AbCdEfG", createdAt: T, lastUsedAt: null, expiresAt: null, revokedAt: null,
  creditLimit: null, usdPerHour: null, requestsPerHour: null, totalRequests: 0, totalSpend: nanos(0), kind: "api",
  allowedModels: null, allowedIps: null, ownerId: null, ...fields,
});

describe("replacedByRotation", () => {
  test.each([
    ["a key revoked at its same-named successor's creation was rotated", [key("old", { revokedAt: T + 5 }), key("new", { createdAt: T + 5 })], ["old"]],
    ["a key revoked by hand has no successor created at that instant", [key("old", { revokedAt: T + 5 }), key("new", { createdAt: T + 6 })], []],
    ["a key of another name created at that instant is no successor", [key("old", { revokedAt: T + 5 }), key("new", { createdAt: T + 5, name: "other" })], []],
    ["a management key is no successor of an API key", [key("old", { revokedAt: T + 5 }), key("new", { createdAt: T + 5, kind: "management" })], []],
    ["a chain of rotations marks every replaced key", [key("a", { revokedAt: T + 5 }), key("b", { createdAt: T + 5, revokedAt: T + 9 }), key("c", { createdAt: T + 9 })], ["a", "b"]],
    ["active keys are never rotated", [key("a", {}), key("b", { createdAt: T })], []],
  ])("%s", (_, keys, rotated) => {
    expect([...replacedByRotation(keys)].sort()).toEqual(rotated);
  });
});
