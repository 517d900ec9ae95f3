import { beforeAll, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { exec } from "../../src/db/sql.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { request, signUpUser, type Browser } from "../support/session.ts";
import { startGateway, useGateway, type TestGateway } from "../support/server.ts";
import { insertUsageLog } from "../support/usage-logs.ts";

const COLUMNS = ["date", "model", "requested_model", "prompt_tokens", "completion_tokens", "cost_usd", "latency_ms", "status"];
const T0 = Date.UTC(2026, 2, 14, 9, 26, 53, 589);

const accountId = async (gateway: TestGateway, user: Browser) => (await gateway.store.findAccountByEmail(user.email))!.id;
const parseCsv = (text: string): Record<string, string>[] => parse(text, { columns: true });

describeEachDialect("GET /usage/export", (dialect) => {
  const gateway = useGateway(dialect);
  let alice: Browser;
  let bob: Browser;

  beforeAll(async () => {
    alice = await signUpUser(gateway().url);
    bob = await signUpUser(gateway().url);
    const aliceId = await accountId(gateway(), alice);
    await insertUsageLog(gateway().db, {
      accountId: aliceId, createdAt: T0, model: "gpt-5.4-mini", requestedModel: "gpt-5.4-mini", promptTokens: 1200,
      completionTokens: 345, costNanos: 1_032_000_001n, latencyMs: 1834, status: "success",
    });
    await insertUsageLog(gateway().db, {
      accountId: aliceId, createdAt: T0 + 60_000, model: "deepseek-v3.2", requestedModel: 'deepseek-v3.2, "beta"\nline two',
      promptTokens: 50, completionTokens: 0, costNanos: 0n, latencyMs: 120_000, status: "error", error: "upstream timed out",
    });
    await insertUsageLog(gateway().db, { accountId: await accountId(gateway(), bob), createdAt: T0 + 120_000, model: "gpt-4o" });
  });

  test("answers a CSV attachment named for today's UTC date", async () => {
    const days = () => new Date().toISOString().slice(0, 10);
    const before = days();
    const res = await alice.send("GET", "/usage/export");
    const after = days();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv");
    expect([before, after].map((d) => `attachment; filename="gateway-usage-${d}.csv"`)).toContain(
      res.headers.get("content-disposition")!,
    );
    await res.body?.cancel();
  });

  test("has the spec's columns and the caller's logs only, newest first, quoted where needed", async () => {
    const text = await (await alice.send("GET", "/usage/export")).text();
    expect(text.split("\r\n")[0]).toBe(COLUMNS.join(","));
    expect(parseCsv(text)).toEqual([
      {
        date: "2026-03-14T09:27:53.589Z",
        model: "deepseek-v3.2",
        requested_model: 'deepseek-v3.2, "beta"\nline two',
        prompt_tokens: "50",
        completion_tokens: "0",
        cost_usd: "0.000000000",
        latency_ms: "120000",
        status: "error",
      },
      {
        date: "2026-03-14T09:26:53.589Z",
        model: "gpt-5.4-mini",
        requested_model: "gpt-5.4-mini",
        prompt_tokens: "1200",
        completion_tokens: "345",
        cost_usd: "1.032000001",
        latency_ms: "1834",
        status: "success",
      },
    ]);
  });

  test("another user's export holds only that user's logs", async () => {
    const rows = parseCsv(await (await bob.send("GET", "/usage/export")).text());
    expect(rows.map((r) => r.model)).toEqual(["gpt-4o"]);
  });

  test("a user without logs gets the header alone", async () => {
    const text = await (await (await signUpUser(gateway().url)).send("GET", "/usage/export")).text();
    expect(text).toBe(`${COLUMNS.join(",")}\r\n`);
  });

  test("holds the latest 1,000 logs, streamed rather than sent with a precomputed length", async () => {
    const user = await signUpUser(gateway().url);
    const id = await accountId(gateway(), user);
    await gateway().db.transaction((function* () {
      for (let i = 0; i < 1_005; i++) {
        yield* exec(
          `INSERT INTO usage_logs (id, account_id, created_at, model, requested_model, prompt_tokens, completion_tokens,
             cost_nanos, latency_ms, status) VALUES (?, ?, ?, 'gpt-4.1-nano', 'gpt-4.1-nano', ?, 1, 1, 10, 'success')`,
          Bun.randomUUIDv7(), id, T0 + i * 1000, i,
        );
      }
    })());
    const res = await user.send("GET", "/usage/export");
    expect(res.headers.get("content-length")).toBeNull();
    const rows = parseCsv(await res.text());
    expect(rows).toHaveLength(1_000);
    expect(rows[0]!.prompt_tokens).toBe("1004");
    expect(rows.at(-1)!.prompt_tokens).toBe("5");
  });

  test("a deleted account answers 404 User not found", async () => {
    const user = await signUpUser(gateway().url);
    await gateway().store.updateAccount(await accountId(gateway(), user), { deletedAt: Date.now() });
    const res = await user.send("GET", "/usage/export");
    expect(res.status).toBe(404);
    expect(await readJson(res)).toEqual({ error: "User not found" });
  });

  test("POST answers 405", async () => {
    const res = await request(gateway().url, "POST", "/usage/export");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });
});

describeEachDialect("GET /usage/export when the query fails", (dialect) => {
  test("answers 500 Failed to export usage", async () => {
    const gateway = await startGateway(dialect);
    try {
      const user = await signUpUser(gateway.url);
      await gateway.db.run(exec("DROP TABLE usage_logs"));
      const res = await user.send("GET", "/usage/export");
      expect(res.status).toBe(500);
      expect(await readJson(res)).toEqual({ error: "Failed to export usage" });
    } finally {
      await gateway.stop();
    }
  });
});
