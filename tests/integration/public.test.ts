import { expect, test } from "bun:test";
import { readJson } from "../support/http.ts";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startGateway, useGateway } from "../support/server.ts";

const CACHE_CONTROL = "public, s-maxage=60, stale-while-revalidate=300";

describeEachDialect("public endpoints", (dialect) => {
  const gateway = useGateway(dialect);

  test("GET /health answers 200 with status ok, db connected and a millisecond timestamp", async () => {
    const before = Date.now();
    const res = await fetch(`${gateway().url}/health`);
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(Object.keys(body).sort()).toEqual(["db", "status", "ts"]);
    expect(body.status).toBe("ok");
    expect(body.db).toBe("connected");
    expect(Number.isInteger(body.ts)).toBe(true);
    expect(body.ts).toBeGreaterThanOrEqual(before);
  });

  test("GET /models lists the enabled models with the spec's fields, formats and Cache-Control", async () => {
    const res = await fetch(`${gateway().url}/models`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe(CACHE_CONTROL);
    expect(res.headers.get("x-gateway-model-source")).toBeNull();
    const models = await readJson(res);
    expect(models).toHaveLength(22);
    expect(models[0]).toEqual({
      model_id: "gpt-5.5",
      display_name: "GPT-5.5",
      provider: "openai",
      category: "frontier",
      context_window: 400000,
      sell_input_per_million: "5.0000",
      sell_output_per_million: "30.0000",
      use_case_hint: "High-quality reasoning, general production and code review",
      speed_badge: "Frontier",
    });
    const gpt41 = models.find((m: { model_id: string }) => m.model_id === "gpt-4.1");
    expect(gpt41.context_window).toBe(1_047_576);
    const deepseek = models.find((m: { model_id: string }) => m.model_id === "deepseek-v4-pro");
    expect([deepseek.sell_input_per_million, deepseek.sell_output_per_million]).toEqual(["1.9300", "3.8300"]);
  });

  test("a disabled model disappears from GET /models", async () => {
    await gateway().store.updateModel("llama-4-scout", { enabled: false });
    const ids = ((await readJson(await fetch(`${gateway().url}/models`))) as { model_id: string }[]).map((m) => m.model_id);
    expect(ids).toHaveLength(21);
    expect(ids).not.toContain("llama-4-scout");
    await gateway().store.updateModel("llama-4-scout", { enabled: true });
  });

  test.each([
    ["POST", "/health"],
    ["DELETE", "/models"],
  ])("%s %s answers 405 naming the allowed method", async (method, path) => {
    const res = await fetch(`${gateway().url}${path}`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
    expect(await readJson(res)).toEqual({ error: "Method not allowed. Use GET." });
  });

  test("an unknown path answers 404 with a JSON error", async () => {
    const res = await fetch(`${gateway().url}/no-such-thing`);
    expect(res.status).toBe(404);
    expect(await readJson(res)).toEqual({ error: "Not found" });
  });
});

describeEachDialect("when the database is unreachable", (dialect) => {
  test("/health answers 503 disconnected and /models serves the fallback registry with its header", async () => {
    const gateway = await startGateway(dialect);
    await gateway.db.close();
    try {
      const health = await fetch(`${gateway.url}/health`);
      expect(health.status).toBe(503);
      const body = await readJson(health);
      expect({ status: body.status, db: body.db }).toEqual({ status: "error", db: "disconnected" });
      expect(Number.isInteger(body.ts)).toBe(true);

      const models = await fetch(`${gateway.url}/models`);
      expect(models.status).toBe(200);
      expect(models.headers.get("x-gateway-model-source")).toBe("fallback");
      expect(models.headers.get("cache-control")).toBe(CACHE_CONTROL);
      const ids = ((await readJson(models)) as { model_id: string }[]).map((m) => m.model_id);
      expect(ids).toEqual(FALLBACK_CATALOG.map((m) => m.id));
    } finally {
      await gateway.stop().catch(() => {});
    }
  });
});

describeEachDialect("mounted under BASE_PATH", (dialect) => {
  const gateway = useGateway(dialect, { BASE_PATH: "/api" });

  test("every route moves under the prefix", async () => {
    const root = gateway().url.replace(/\/api$/, "");
    expect((await fetch(`${root}/api/health`)).status).toBe(200);
    expect((await fetch(`${root}/api/models`)).status).toBe(200);
    expect((await fetch(`${root}/health`)).status).toBe(404);
  });
});
