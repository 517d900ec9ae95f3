import { afterAll, beforeAll, expect, test } from "bun:test";
import { readJson } from "../support/http.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { runGateway, spawnServe } from "../support/binary.ts";
import { MIGRATIONS } from "../../src/db/migrations.gen.ts";

test("gateway --help names the server and the admin commands", async () => {
  const run = await runGateway(["--help"]);
  expect(run.code).toBe(0);
  for (const command of ["serve", "migrate", "models"]) expect(run.stdout).toContain(command);
});

test("an unknown command fails with a usage error", async () => {
  const run = await runGateway(["frobnicate"]);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain("unknown command");
});

test("a malformed DATABASE_URL is a clear configuration error, exit 2", async () => {
  const run = await runGateway(["migrate"], { DATABASE_URL: "mysql://nope" });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("DATABASE_URL must be sqlite:<path> or postgres://");
});

describeEachDialect("the compiled binary", (dialect) => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await testDb.drop();
  });

  test("migrate lists the migrations it applied, then says up to date", async () => {
    const tags = MIGRATIONS[dialect].map((m) => m.tag);
    const run = await runGateway(["migrate", "--json"], { DATABASE_URL: testDb.url });
    expect({ code: run.code, stderr: run.stderr, out: JSON.parse(run.stdout) }).toEqual({ code: 0, stderr: "", out: { migrated: true, applied: tags } });
    const again = await runGateway(["migrate", "--json"], { DATABASE_URL: testDb.url });
    expect(JSON.parse(again.stdout)).toEqual({ migrated: true, applied: [] });
    const text = await runGateway(["migrate"], { DATABASE_URL: testDb.url });
    expect({ code: text.code, stdout: text.stdout }).toEqual({ code: 0, stdout: "database is up to date: no migrations to apply\n" });
  });

  test("migrate on a new database names each migration it applied, and not up to date", async () => {
    const fresh = await createTestDatabase(dialect);
    try {
      const run = await runGateway(["migrate"], { DATABASE_URL: fresh.url });
      const tags = MIGRATIONS[dialect].map((m) => m.tag);
      expect({ code: run.code, stdout: run.stdout }).toEqual({
        code: 0,
        stdout: `applied ${tags.length} migrations:\n${tags.map((t) => `  ${t}\n`).join("")}`,
      });
    } finally {
      await fresh.drop();
    }
  });

  test("serve answers /health and /models, and stops on SIGTERM", async () => {
    const server = await spawnServe({ DATABASE_URL: testDb.url });
    try {
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      expect((await readJson(health)).status).toBe("ok");
      const models = await fetch(`${server.url}/models`);
      expect((await readJson(models)).length).toBe(22);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  test("models disable, list and enable work through the CLI, in JSON and as a table", async () => {
    const env = { DATABASE_URL: testDb.url };
    const disabled = await runGateway(["models", "disable", "gpt-4o", "--json"], env);
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ id: "gpt-4o", enabled: false });

    const listed = await runGateway(["--json", "models", "list"], env);
    const models = JSON.parse(listed.stdout) as { id: string; enabled: boolean }[];
    expect(models).toHaveLength(22);
    expect(models.find((m) => m.id === "gpt-4o")?.enabled).toBe(false);

    const table = await runGateway(["models", "list"], env);
    expect(table.stdout).toMatch(/gpt-4o\s.*\bno\b/);

    expect((await runGateway(["models", "enable", "gpt-4o"], env)).stdout.trim()).toBe("gpt-4o enabled");
  });

  test("models set-price stores exact prices and refuses bad amounts", async () => {
    const env = { DATABASE_URL: testDb.url };
    const priced = await runGateway(["models", "set-price", "gpt-5", "--input", "1.333300000", "--output", "9.99", "--json"], env);
    expect(JSON.parse(priced.stdout)).toMatchObject({ inputPerMillionUsd: "1.333300000", outputPerMillionUsd: "9.990000000" });
    const bad = await runGateway(["models", "set-price", "gpt-5", "--input", "-1", "--output", "1"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('error: --input must be from 0 to 10000 (got "-1")');
  });

  test("models set-price --cached-input sets the cached-input price, and none resets it to the input price", async () => {
    const env = { DATABASE_URL: testDb.url };
    const args = ["models", "set-price", "gpt-4.1", "--input", "2", "--output", "8"];
    const cached = await runGateway([...args, "--cached-input", "0.5", "--json"], env);
    expect(JSON.parse(cached.stdout)).toMatchObject({ inputPerMillionUsd: "2.000000000", cachedInputPerMillionUsd: "0.500000000" });
    const kept = await runGateway([...args, "--json"], env);
    expect(JSON.parse(kept.stdout)).toMatchObject({ cachedInputPerMillionUsd: "0.500000000" });
    const reset = await runGateway([...args, "--cached-input", "none", "--json"], env);
    expect(JSON.parse(reset.stdout)).toMatchObject({ cachedInputPerMillionUsd: "2.000000000" });
    const bad = await runGateway([...args, "--cached-input", "cheap"], env);
    expect([bad.code, bad.stderr.trim()]).toEqual([1, 'error: --cached-input must be a USD amount, such as "25" or "2.50" (got "cheap")']);
  });

  test("an unknown model ID is an error with exit code 1", async () => {
    const run = await runGateway(["models", "enable", "no-such-model"], { DATABASE_URL: testDb.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no model "no-such-model"');
  });
});
