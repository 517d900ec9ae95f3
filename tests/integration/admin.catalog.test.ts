import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../../src/core/time.ts";
import { exec } from "../../src/db/sql.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { accountIdOf, signInOperator } from "../support/operator.ts";
import { request, signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";
import { insertUsageLog } from "../support/usage-logs.ts";

describeEachDialect("the console's catalog and figures", (dialect) => {
  const gateway = useGateway(dialect, { FREE_CREDITS_USD: "0" });
  let operator: Browser;
  beforeAll(async () => {
    operator = await signInOperator(gateway().url, gateway().store);
  });

  describe("models", () => {
    afterAll(async () => {
      await gateway().store.updateModel("kimi-k2.5", { enabled: true, inputPerMTok: 600_000_000n as never, outputPerMTok: 2_500_000_000n as never });
    });

    test("GET /admin/models lists the whole catalog, disabled models included", async () => {
      await gateway().store.updateModel("grok-4-3", { enabled: false });
      const { models } = await readJson(await operator.send("GET", "/admin/models"));
      expect(models).toHaveLength(22);
      expect(models.find((m: { id: string }) => m.id === "grok-4-3")).toEqual({
        id: "grok-4-3", displayName: expect.any(String), provider: "xai", category: "frontier", contextWindow: 128_000,
        maxOutputTokens: expect.any(Number), inputPerMillionUsd: "1.2500", outputPerMillionUsd: "2.5000", cachedInputPerMillionUsd: expect.any(String),
        useCaseHint: expect.any(String), speedBadge: expect.any(String), enabled: false,
      });
      await gateway().store.updateModel("grok-4-3", { enabled: true });
    });

    test("PATCH reprices and disables a model; GET /models follows", async () => {
      const res = await operator.send("PATCH", "/admin/models/kimi-k2.5", { inputPerMillionUsd: "0.7125", outputPerMillionUsd: 3 });
      expect(await readJson(res)).toMatchObject({ id: "kimi-k2.5", inputPerMillionUsd: "0.7125", outputPerMillionUsd: "3.0000", enabled: true });
      const listed = (await readJson(await request(gateway().url, "GET", "/models"))).find((m: { model_id: string }) => m.model_id === "kimi-k2.5");
      expect([listed.sell_input_per_million, listed.sell_output_per_million]).toEqual(["0.7125", "3.0000"]);
      expect(await readJson(await operator.send("PATCH", "/admin/models/kimi-k2.5", { enabled: false }))).toMatchObject({ enabled: false });
      const ids = (await readJson(await request(gateway().url, "GET", "/models"))).map((m: { model_id: string }) => m.model_id);
      expect(ids).not.toContain("kimi-k2.5");
    });

    test.each([
      [{}, "Nothing to change: send any of enabled, inputPerMillionUsd, outputPerMillionUsd, cachedInputPerMillionUsd"],
      [{ cachedInputPerMillionUsd: "0.00001" }, "cachedInputPerMillionUsd must have at most 4 decimal places"],
      [{ enabled: "yes" }, "enabled must be true or false"],
      [{ inputPerMillionUsd: "0.12345" }, "inputPerMillionUsd must have at most 4 decimal places"],
      [{ outputPerMillionUsd: "-1" }, "outputPerMillionUsd must be from 0 to 10000"],
      [{ outputPerMillionUsd: "10000.0001" }, "outputPerMillionUsd must be from 0 to 10000"],
      [{ inputPerMillionUsd: null }, "inputPerMillionUsd must be a USD amount, such as \"25\" or \"2.50\""],
    ])("PATCH %p is 400 and changes nothing", async (body, error) => {
      const res = await operator.send("PATCH", "/admin/models/gpt-4o", body);
      expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 400, body: { error } });
      const model = (await gateway().store.listModels()).find((m) => m.id === "gpt-4o");
      expect([model?.inputPerMTok, model?.enabled]).toEqual([2_500_000_000n as never, true]);
    });

    test("PATCH sets the cached-input price, charged from then on, and null puts it back at the input price", async () => {
      const set = await operator.send("PATCH", "/admin/models/gpt-4o", { cachedInputPerMillionUsd: "0.6250" });
      expect(await readJson(set)).toMatchObject({ id: "gpt-4o", inputPerMillionUsd: "2.5000", cachedInputPerMillionUsd: "0.6250" });
      expect((await gateway().store.listModels()).find((m) => m.id === "gpt-4o")?.cachedInputPerMTok).toBe(625_000_000n as never);
      const reset = await operator.send("PATCH", "/admin/models/gpt-4o", { cachedInputPerMillionUsd: null });
      expect(await readJson(reset)).toMatchObject({ cachedInputPerMillionUsd: "2.5000" });
      expect((await gateway().store.listModels()).find((m) => m.id === "gpt-4o")?.cachedInputPerMTok).toBeNull();
    });

    test("PATCH of an unknown model is 404", async () => {
      const res = await operator.send("PATCH", "/admin/models/no-such-model", { enabled: true });
      expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 404, body: { error: "Model not found" } });
    });
  });

  describe("GET /admin/stats", () => {
    test("gives credit sold, granted and spent per UTC day, and usage per model and provider, exactly", async () => {
      const { db, store } = gateway();
      const user = await signUpUser(gateway().url);
      const id = await accountIdOf(store, user);
      const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
      const ledger = (kind: string, amount: bigint, at: number) => db.run(exec(
        "INSERT INTO ledger_entries (id, account_id, kind, amount_nanos, created_at) VALUES (?, ?, ?, ?, ?)",
        Bun.randomUUIDv7(), id, kind, amount, at,
      ));
      await ledger("purchase", 30_000_000_000n, today + 5);
      await ledger("grant", 1_000_000_001n, today - DAY_MS);
      await ledger("adjustment", -1n, today - DAY_MS);
      await ledger("purchase", 60_000_000_000n, today - 7 * DAY_MS); // before a 7-day window
      await insertUsageLog(db, { accountId: id, createdAt: today + 1, model: "gpt-4o", costNanos: 7n, latencyMs: 100 });
      await insertUsageLog(db, { accountId: id, createdAt: today + 2, model: "gpt-4o", costNanos: 0n, latencyMs: 301, status: "error" });
      await insertUsageLog(db, { accountId: id, createdAt: today - DAY_MS, model: "gpt-5", costNanos: 5n, latencyMs: 50 });
      await insertUsageLog(db, { accountId: id, createdAt: today - DAY_MS, model: "llama-4-scout", costNanos: 3n, latencyMs: 70 });
      // The window's first instant, in a row as earlier versions wrote it (its id minted a moment
      // after its created_at), counts; the instant before, with its id a moment after, does not.
      const firstDay = today - 6 * DAY_MS;
      await insertUsageLog(db, { accountId: id, createdAt: firstDay, id: Bun.randomUUIDv7("hex", firstDay + 5), model: "gpt-5", costNanos: 1n, latencyMs: 50 });
      await insertUsageLog(db, { accountId: id, createdAt: firstDay - 1, id: Bun.randomUUIDv7("hex", firstDay + 5), model: "gpt-5", costNanos: 100n });
      await insertUsageLog(db, { accountId: id, createdAt: firstDay - DAY_MS, model: "gpt-5", costNanos: 100n });
      await db.run(exec(
        `INSERT INTO reservations (id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at)
         VALUES (?, ?, 'k', 'gpt-4o', 'gpt-4o', 1, ?, ?)`, Bun.randomUUIDv7(), id, today, Date.now() + 60_000,
      ));

      const stats = await readJson(await operator.send("GET", "/admin/stats?days=7"));
      expect(stats.daily).toHaveLength(7);
      expect(stats.daily.slice(-2)).toEqual([
        { date: new Date(today - DAY_MS).toISOString().slice(0, 10), soldUsd: "0.000000000", grantedUsd: "1.000000000", spentUsd: "0.000000008", requests: 2, errors: 0 },
        { date: new Date(today).toISOString().slice(0, 10), soldUsd: "30.000000000", grantedUsd: "0.000000000", spentUsd: "0.000000007", requests: 2, errors: 1 },
      ]);
      expect(stats.daily[0]).toMatchObject({ soldUsd: "0.000000000", spentUsd: "0.000000001", requests: 1 });
      expect(stats.models).toEqual([
        { model: "gpt-4o", spendUsd: "0.000000007", requests: 2, errors: 1, avgLatencyMs: 201 },
        { model: "gpt-5", spendUsd: "0.000000006", requests: 2, errors: 0, avgLatencyMs: 50 },
        { model: "llama-4-scout", spendUsd: "0.000000003", requests: 1, errors: 0, avgLatencyMs: 70 },
      ]);
      expect(stats.providers).toEqual([
        { provider: "openai", spendUsd: "0.000000013", requests: 4, errors: 1, avgLatencyMs: 125 },
        { provider: "meta", spendUsd: "0.000000003", requests: 1, errors: 0, avgLatencyMs: 70 },
      ]);
      expect(stats.inflight).toEqual({ requests: 1, models: [{ model: "gpt-4o", requests: 1 }] });
      await db.run(exec("DELETE FROM reservations WHERE account_id = ?", id));
    });

    test.each(["0", "91", "x", "1.5"])("refuses days=%s with 400", async (days) => {
      const res = await operator.send("GET", `/admin/stats?days=${days}`);
      expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 400, body: { error: "days must be a whole number from 1 to 90" } });
    });
  });
});
