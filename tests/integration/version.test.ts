// The binary says which release and which commit it is: `--version`, `version --json`, the
// start-up log line of `serve` and the `gateway_build_info` series of /metrics all agree.
import { afterAll, beforeAll, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { runGateway, spawnServe } from "../support/binary.ts";
import { createTestDatabase, type TestDatabase } from "../support/databases.ts";
import { scrape } from "../support/metrics.ts";

// The binary is built from this checkout (make build), so it carries its commit.
const git = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: import.meta.dir });
const COMMIT = git.exitCode === 0 ? git.stdout.toString().trim() : "unknown";
const BUILD = { version: pkg.version, commit: COMMIT };

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase("sqlite");
});
afterAll(async () => {
  await testDb.drop();
});

test("gateway --version prints the package's version and the commit it was built from, and exits 0", async () => {
  const run = await runGateway(["--version"]);
  expect(run).toEqual({ code: 0, stdout: `gateway ${pkg.version} (commit ${COMMIT})\n`, stderr: "" });
  expect(COMMIT).toMatch(/^[0-9a-f]{7,}$/);
});

test("gateway version --json prints both as JSON; without --json, the same line as --version", async () => {
  const json = await runGateway(["version", "--json"]);
  expect({ code: json.code, out: JSON.parse(json.stdout) }).toEqual({ code: 0, out: BUILD });
  expect((await runGateway(["version"])).stdout).toBe(`gateway ${pkg.version} (commit ${COMMIT})\n`);
});

test("serve's start-up line and /metrics carry the version and the commit", async () => {
  const served = await spawnServe({ DATABASE_URL: testDb.url });
  try {
    const listening = served.logs.map((line) => JSON.parse(line)).find((entry) => entry.message === "listening");
    expect(listening).toMatchObject(BUILD);
    const metrics = await scrape(served.url);
    expect(metrics.value("gateway_build_info", BUILD)).toBe(1);
  } finally {
    await served.stop();
  }
});
