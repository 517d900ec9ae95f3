import { expect, test } from "bun:test";
import { managementKeyRole } from "../../../src/core/keys/management.ts";
import type { ApiKey } from "../../../src/core/entities.ts";
import type { ManagementKeyFound } from "../../../src/core/store.ts";

const key = (ownerId: string | null) => ({ ownerId }) as ApiKey;

test.each<[string, string | null, ManagementKeyFound["origin"], ManagementKeyFound["makerRole"], ManagementKeyFound["makerRole"]]>([
  ["an owner's key acts as an owner", "u1", "dashboard", "owner", "owner"],
  ["an owner's key, its maker now an admin, acts as an admin", "u1", "dashboard", "admin", "admin"],
  ["an admin's key, its maker now an owner, acts as an owner", "u1", "rotation", "owner", "owner"],
  ["an admin's key, its maker now a member, opens nothing", "u1", "dashboard", "member", null],
  ["an admin's key, its maker gone, opens nothing", "u1", "dashboard", null, null],
  ["the operator's key (the CLI, no maker) acts as an admin", null, "cli", null, "admin"],
  ["a key made with a session but with no maker recorded opens nothing", null, "dashboard", null, null],
  ["nor does its rotation", null, "rotation", null, null],
])("%s", (_title, ownerId, origin, makerRole, expected) => {
  expect(managementKeyRole({ key: key(ownerId), origin, makerRole })).toBe(expected);
});
