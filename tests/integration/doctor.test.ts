// `gateway doctor` through the compiled binary, against fakes of everything it contacts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exec } from "../../src/db/sql.ts";
import { runGateway } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { startDoctorFakes } from "../support/doctor-fakes.ts";
import { startFakeSmtp, type FakeSmtp } from "../support/fake-smtp.ts";
import { TEST_SECRET_KEY } from "../support/server.ts";

interface Report {
  ok: boolean;
  checks: { name: string; status: string; message: string }[];
}

const fakes = startDoctorFakes();
let smtp: FakeSmtp;
beforeAll(async () => {
  smtp = await startFakeSmtp();
});
afterAll(async () => {
  await fakes.stop();
  await smtp.stop();
});

/** Runs `gateway doctor --json` with the passing configuration changed by `env` ("" unsets a variable). */
async function doctor(env: Record<string, string>, ...args: string[]) {
  const run = await runGateway(["doctor", "--json", ...args], { ...fakes.env, SMTP_URL: smtp.url, ...env });
  return { ...run, report: JSON.parse(run.stdout) as Report };
}
const check = (report: Report, name: string) => report.checks.find((c) => c.name === name);
const secretsIn = (env: Record<string, string>) =>
  Object.entries(env).filter(([name]) => /KEY|SECRET|TOKEN/.test(name)).map(([, value]) => value);

describeEachDialect("gateway doctor", (dialect) => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    expect((await runGateway(["migrate"], { DATABASE_URL: testDb.url })).code).toBe(0);
  });
  afterAll(async () => {
    await testDb.drop();
  });

  test("a working configuration passes every check and exits 0, having called each provider and Stripe with its key", async () => {
    const calls = { providers: fakes.providerCalls.length, stripe: fakes.stripeCalls.length };
    const key: Record<string, string> = dialect === "sqlite" ? {} : { SECRET_KEY: TEST_SECRET_KEY };
    const { code, report, stderr } = await doctor({ DATABASE_URL: testDb.url, ...key });
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual([
      "configuration", "database", "migrations", "secret key", ...(dialect === "sqlite" ? ["file modes"] : []),
      "provider openai", "provider deepseek", "provider moonshot", "provider xai", "provider meta",
      "stripe", "stripe webhook", "stripe price builder", "stripe price pro", "stripe price team", "stripe price scale",
      "smtp", "public url", "metrics",
    ]);
    for (const c of report.checks) expect({ name: c.name, status: c.status }).toEqual({ name: c.name, status: "ok" });
    expect(fakes.providerCalls.slice(calls.providers)).toEqual(Array(5).fill("GET /v1/models"));
    expect(fakes.stripeCalls.length - calls.stripe).toBe(5);
  });

  test("the table names every check and says all is well, without printing any secret", async () => {
    const env = { ...fakes.env, SMTP_URL: smtp.url, DATABASE_URL: testDb.url, ...(dialect === "sqlite" ? {} : { SECRET_KEY: TEST_SECRET_KEY }) } as Record<string, string>;
    const run = await runGateway(["doctor"], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("provider moonshot");
    expect(run.stdout).toMatch(/migrations\s+│ ok\s+│ all \d+ migrations applied/);
    expect(run.stdout.trim()).toEndWith("Everything required works.");
    for (const secret of secretsIn(env)) expect(`${run.stdout}${run.stderr}`).not.toContain(secret);
  });

  test("a database readable by other users (SQLite) or a missing key (Postgres) warns, and exits 0", async () => {
    if (dialect === "sqlite") {
      const path = testDb.url.slice("sqlite:".length);
      chmodSync(path, 0o644);
      try {
        const { code, report } = await doctor({ DATABASE_URL: testDb.url });
        // SQLite gives the -wal and -shm it makes the database's mode: they are named too.
        expect(check(report, "file modes")).toEqual({ name: "file modes", status: "warn", message: expect.stringContaining(`readable by other users: ${path} (0644)`) });
        expect(code).toBe(0);
      } finally {
        for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
      }
      return;
    }
    const { code, report } = await doctor({ DATABASE_URL: testDb.url, SECRET_KEY: "" });
    expect(check(report, "secret key")).toEqual({ name: "secret key", status: "warn", message: expect.stringContaining("SECRET_KEY is not set") });
    expect(code).toBe(0);
  });

  test("a provider refusing its key (401) fails that check, names the variable, and exits 1", async () => {
    const { code, report, stderr } = await doctor({ DATABASE_URL: testDb.url, OPENAI_API_KEY: "sk-revoked-key" });
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(check(report, "provider openai")).toEqual({
      name: "provider openai",
      status: "fail",
      message: expect.stringContaining("the provider refused OPENAI_API_KEY (GET http://127.0.0.1:"),
    });
    expect(check(report, "provider openai")!.message).toContain("answered 401");
    expect(check(report, "provider deepseek")!.status).toBe("ok");
    expect(stderr.trim()).toBe("error: 1 required check failed: provider openai");
    expect(stderr + JSON.stringify(report)).not.toContain("sk-revoked-key");
  });

  test("every key of a provider is probed: one refused of several warns, all refused fails", async () => {
    const good = fakes.env.OPENAI_API_KEY!;
    const calls = fakes.providerCalls.length;
    const some = await doctor({ DATABASE_URL: testDb.url, OPENAI_API_KEY: `${good},sk-revoked-one,${good}` });
    expect(fakes.providerCalls.length - calls).toBe(3 + 4); // three openai keys, one key each for the others
    expect(check(some.report, "provider openai")).toEqual({
      name: "provider openai",
      status: "warn",
      message: expect.stringMatching(/^key 2 of 3: the provider refused OPENAI_API_KEY \(GET http:\/\/127\.0\.0\.1:\d+\/v1\/models answered 401\)$/),
    });
    expect(some.code).toBe(0);
    const all = await doctor({ DATABASE_URL: testDb.url, OPENAI_API_KEY: "sk-revoked-one,sk-revoked-two" });
    expect([all.code, check(all.report, "provider openai")!.status]).toEqual([1, "fail"]);
    const fine = await doctor({ DATABASE_URL: testDb.url, OPENAI_API_KEY: `${good},${good}` });
    expect(check(fine.report, "provider openai")!.message).toStartWith("all 2 keys accepted by http://127.0.0.1:");
    for (const run of [some, all, fine]) expect(run.stdout + run.stderr).not.toContain("sk-revoked");
  });

  test("a missing Stripe price fails its pack's check; a price Stripe does not have fails too", async () => {
    const { code, report } = await doctor({ DATABASE_URL: testDb.url, STRIPE_PRICE_TEAM: "", STRIPE_PRICE_PRO: "price_gone" });
    expect(code).toBe(1);
    expect(check(report, "stripe price team")).toEqual({
      name: "stripe price team",
      status: "fail",
      message: "STRIPE_PRICE_TEAM is not set: buying the Team pack answers 503",
    });
    expect(check(report, "stripe price pro")).toEqual({ name: "stripe price pro", status: "fail", message: "Stripe has no price price_gone (STRIPE_PRICE_PRO)" });
    expect(check(report, "stripe price builder")!.status).toBe("ok");
  });

  test("--offline contacts no provider, Stripe or SMTP server and still checks what it can", async () => {
    const calls = { providers: fakes.providerCalls.length, stripe: fakes.stripeCalls.length };
    smtp.setDown(true);
    try {
      const { code, report } = await doctor({ DATABASE_URL: testDb.url }, "--offline");
      expect(code).toBe(0);
      expect([fakes.providerCalls.length, fakes.stripeCalls.length, smtp.refused]).toEqual([calls.providers, calls.stripe, 0]);
      expect(check(report, "provider xai")).toEqual({ name: "provider xai", status: "skip", message: expect.stringContaining("--offline") });
      expect(check(report, "migrations")!.status).toBe("ok");
    } finally {
      smtp.setDown(false);
    }
  });

  test("pending migrations are a warning; migrations from a newer gateway are a failure", async () => {
    const db = openTestDatabase(testDb.url);
    try {
      await db.run(exec("DELETE FROM gateway_migrations WHERE tag = '0001_seed_models'"));
      const pending = await doctor({ DATABASE_URL: testDb.url }, "--offline");
      expect(pending.code).toBe(0);
      expect(check(pending.report, "migrations")).toEqual({
        name: "migrations",
        status: "warn",
        message: expect.stringContaining("not applied yet (0001_seed_models): `gateway migrate` applies them"),
      });

      await db.run(exec("INSERT INTO gateway_migrations (tag, applied_at) VALUES ('0001_seed_models', 0), ('9999_from_the_future', 0)"));
      const newer = await doctor({ DATABASE_URL: testDb.url }, "--offline");
      expect(newer.code).toBe(1);
      expect(check(newer.report, "migrations")).toEqual({
        name: "migrations",
        status: "fail",
        message: expect.stringContaining("migrations this binary does not know (9999_from_the_future)"),
      });
    } finally {
      await db.run(exec("DELETE FROM gateway_migrations WHERE tag = '9999_from_the_future'"));
      await db.close();
    }
  });

  test("a provider without a key fails while the catalog has its models enabled, and is skipped once they are disabled", async () => {
    const env = { DATABASE_URL: testDb.url, META_API_KEY: "" };
    const used = await doctor(env, "--offline");
    // One comparison of the exit code, the meta check and the migrations check, so that a failure shows all three.
    expect({ code: used.code, meta: check(used.report, "provider meta"), migrations: check(used.report, "migrations")?.status }).toEqual({
      code: 1,
      meta: {
        name: "provider meta",
        status: "fail",
        message: "META_API_KEY is not set: chat requests for its 3 enabled models (llama-3.3-70b-instruct, llama-4-maverick, llama-4-scout) will fail with 502; set it, or disable them with `gateway models disable <id>`",
      },
      migrations: "ok",
    });
    const models = ["llama-3.3-70b-instruct", "llama-4-maverick", "llama-4-scout"];
    for (const id of models) expect((await runGateway(["models", "disable", id], { DATABASE_URL: testDb.url })).code).toBe(0);
    try {
      const unused = await doctor(env, "--offline");
      expect(unused.code).toBe(0);
      expect(check(unused.report, "provider meta")).toEqual({ name: "provider meta", status: "skip", message: "not used: no key and no enabled model" });
    } finally {
      for (const id of models) await runGateway(["models", "enable", id], { DATABASE_URL: testDb.url });
    }
  });
});

describe("gateway doctor, broken surroundings", () => {
  test("a database that refuses connections fails in plain words, skips the migrations, and exits 1", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const closedPort = listener.port;
    listener.stop(true);
    const { code, report, stderr } = await doctor({ DATABASE_URL: `postgres://gateway:db-password@127.0.0.1:${closedPort}/gateway` }, "--offline");
    expect(code).toBe(1);
    expect(check(report, "database")).toEqual({
      name: "database",
      status: "fail",
      message: expect.stringContaining(`cannot reach Postgres at postgres://127.0.0.1:${closedPort}/gateway: `),
    });
    expect(check(report, "migrations")!.status).toBe("skip");
    expect(stderr).toContain("failed: database");
    expect(stderr + JSON.stringify(report)).not.toContain("db-password");
  });

  test("a SQLite file that does not exist yet is a warning, and the doctor does not create it", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "doctor-")), "gateway.db");
    const { report } = await doctor({ DATABASE_URL: `sqlite:${path}` }, "--offline");
    expect(check(report, "database")).toEqual({ name: "database", status: "warn", message: expect.stringContaining("does not exist yet") });
    expect(existsSync(path)).toBe(false);
  });

  test("an invalid setting fails the configuration check and stops there", async () => {
    const { code, report } = await doctor({ LOG_LEVEL: "loud" });
    expect(code).toBe(1);
    expect(report.checks).toEqual([
      { name: "configuration", status: "fail", message: 'LOG_LEVEL must be one of info, warn, error (got "loud"); nothing else was checked' },
    ]);
  });

  test("an SMTP server that refuses connections fails the smtp check", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "doctor-")), "gateway.db");
    smtp.setDown(true);
    try {
      const { code, report } = await doctor({ DATABASE_URL: `sqlite:${path}` });
      expect(code).toBe(1);
      expect(check(report, "smtp")).toEqual({ name: "smtp", status: "fail", message: expect.stringContaining(`cannot use ${smtp.url}: `) });
    } finally {
      smtp.setDown(false);
    }
  });
});
