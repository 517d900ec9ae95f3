import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";

const operations = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");

test("every unit and command in docs/operations.md reads the environment file its install steps create", () => {
  const created = operations.match(/install -m 0600 \/dev\/null (\S+)/)?.[1];
  expect(created).toBe("/etc/gateway/gateway.env");
  const read = [...operations.matchAll(/EnvironmentFile=(\S+)/g)].map((m) => m[1]);
  expect(read.length).toBeGreaterThan(2);
  expect(read.filter((path) => path !== created)).toEqual([]);
});
