// `gateway usage export` through the compiled binary, on both databases: every row of a
// --from/--to range (past the HTTP export's 1,000), as CSV or, with --json, as JSON.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { runGateway } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { createStore } from "../../src/db/store/index.ts";
import { insertUsageLog } from "../support/usage-logs.ts";
import { uniqueEmail } from "../support/session.ts";

const MINUTE = 60_000;
const DAY_START = Date.UTC(2026, 2, 11);
const IN_RANGE = 1_205;

describeEachDialect("gateway usage export", (dialect) => {
  let testDb: TestDatabase;
  const email = uniqueEmail("usage-cli");
  const cli = (...args: string[]) => runGateway(args, { DATABASE_URL: testDb.url });

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    expect((await cli("users", "create", "--email", email)).code).toBe(0);
    const db = openTestDatabase(testDb.url);
    try {
      const account = (await createStore(db).findAccountByEmail(email))!;
      // One a minute through 2026-03-11 (1,205 of them), and three on each neighbouring day.
      for (let i = 0; i < IN_RANGE; i++) await insertUsageLog(db, { accountId: account.id, createdAt: DAY_START + i * MINUTE, promptTokens: i });
      for (const at of [DAY_START - 1, DAY_START - MINUTE, DAY_START - 2 * MINUTE, DAY_START + 86_400_000, DAY_START + 86_400_001, DAY_START + 2 * 86_400_000]) {
        await insertUsageLog(db, { accountId: account.id, createdAt: at });
      }
    } finally {
      await db.close();
    }
  }, 120_000);
  afterAll(async () => {
    await testDb.drop();
  });

  test("CSV: every row of the range, no 1,000-row cap, newest first", async () => {
    const run = await cli("usage", "export", "--email", email, "--from", "2026-03-11", "--to", "2026-03-11");
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const lines = run.stdout.trimEnd().split("\r\n");
    expect(lines[0]).toBe("date,model,requested_model,prompt_tokens,completion_tokens,cost_usd,latency_ms,status");
    expect(lines).toHaveLength(IN_RANGE + 1);
    expect(lines[1]).toStartWith(`${new Date(DAY_START + (IN_RANGE - 1) * MINUTE).toISOString()},`);
    expect(lines.at(-1)).toStartWith(`${new Date(DAY_START).toISOString()},`);
  }, 120_000);

  test("--json: one record per row under the HTTP API's names; timestamps bound the range, --to exclusive", async () => {
    const run = await cli("usage", "export", "--email", email, "--from", "2026-03-11T00:10:00Z", "--to", "2026-03-11T00:20", "--json");
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const records = JSON.parse(run.stdout);
    expect(records.map((r: { promptTokens: number }) => r.promptTokens)).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10]);
    expect(records[0]).toEqual({
      id: expect.any(String), createdAt: new Date(DAY_START + 19 * MINUTE).toISOString(), model: "gpt-5.4-mini", requestedModel: "gpt-5.4-mini",
      promptTokens: 19, completionTokens: 20, cachedTokens: 0, costUsd: "0.000001000", savedUsd: "0.000000000", latencyMs: 250, status: "success",
    });
    const all = JSON.parse((await cli("usage", "export", "--email", email, "--json")).stdout);
    expect(all).toHaveLength(IN_RANGE + 6);
  }, 120_000);

  test("--out writes an owner-only file; a malformed --from is refused before anything is read", async () => {
    const out = join(tmpdir(), `usage-${process.pid}-${dialect}.json`);
    const run = await cli("usage", "export", "--email", email, "--from", "2026-03-12", "--json", "--out", out);
    expect(JSON.parse(run.stdout)).toEqual({ email, out });
    expect(JSON.parse(await Bun.file(out).text())).toHaveLength(3);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const bad = await cli("usage", "export", "--email", email, "--from", "2026-02-30");
    expect({ code: bad.code, stderr: bad.stderr.trim() }).toEqual({
      code: 1, stderr: 'error: --from must be a UTC date such as 2026-03-14 or a timestamp such as 2026-03-14T09:30:00Z (got "2026-02-30")',
    });
  }, 120_000);
});
