// Several API keys per provider (DESIGN.md, Providers): requests rotate over the keys, a key the
// provider refuses or throttles rests, and a failed attempt is retried on another key before
// anything reaches the client, with one reservation, one usage-log row and one charge.
import { afterAll, expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { scrape } from "../support/metrics.ts";
import { useGateway } from "../support/server.ts";

/** A provider whose answer depends on the key: "refused-*" 401, "throttled-*" 429, "broken-*" 500, else a completion. */
const seen: string[] = [];
const provider = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = (await request.json()) as { stream?: boolean };
    const key = request.headers.get("authorization")?.replace("Bearer ", "") ?? "";
    seen.push(key);
    if (key.startsWith("refused")) return Response.json({ error: { message: "Incorrect API key provided" } }, { status: 401 });
    if (key.startsWith("throttled")) return Response.json({ error: { message: "Rate limit reached" } }, { status: 429, headers: { "retry-after": "120" } });
    if (key.startsWith("broken")) return Response.json({ error: { message: "server error" } }, { status: 500 });
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (body.stream) {
      const chunk = (c: object) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", ...c })}\n\n`;
      const text = chunk({ choices: [{ index: 0, delta: { content: "hi" }, finish_reason: null }] })
        + chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) + chunk({ choices: [], usage }) + "data: [DONE]\n\n";
      return new Response(text, { headers: { "content-type": "text/event-stream" } });
    }
    return Response.json({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }], usage });
  },
});
afterAll(() => provider.stop(true));
const base = `http://127.0.0.1:${provider.port}/v1`;
const COST = requestCost(10, 5, FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!);

describeEachDialect("several keys per provider", (dialect) => {
  const gateway = useGateway(dialect, {
    OPENAI_BASE_URL: base,
    OPENAI_API_KEY: "good-a, refused-b,good-c",
    DEEPSEEK_BASE_URL: base,
    DEEPSEEK_API_KEY: "broken-1,throttled-2,broken-3,good-4",
  });
  const since = () => {
    const start = seen.length;
    return () => seen.slice(start);
  };

  test("requests rotate over the healthy keys; a refused key is retried on another and then rests", async () => {
    const { secret, account } = await fundedKey(gateway().store, "1");
    const sent = since();
    for (let i = 0; i < 4; i++) expect((await postChat(gateway().url, secret, hello())).status).toBe(200);
    // The first pass meets refused-b once, retries on good-c, and never sends it again.
    expect(sent().filter((k) => k === "refused-b")).toHaveLength(1);
    expect(new Set(sent().filter((k) => k !== "refused-b"))).toEqual(new Set(["good-a", "good-c"]));
    const logs = await gateway().store.usageLogPage(account.id, null, 10);
    expect(logs.map((l) => [l.status, l.cost])).toEqual(Array(4).fill(["success", COST]));
    const after = (await gateway().store.getAccount(account.id))!;
    expect(after.balance).toBe(nanos(1_000_000_000n - 4n * COST));
    expect(after.reserved).toBe(nanos(0));
  });

  test("at most two retries before the first byte: three keys failing is a 502, charged nothing, logged once", async () => {
    const { secret, account } = await fundedKey(gateway().store, "1");
    const sent = since();
    const res = await postChat(gateway().url, secret, hello("deepseek-v3.2", { stream: true }));
    expect(res.status).toBe(502);
    expect(res.headers.get("x-should-retry")).toBe("true");
    expect(sent()).toHaveLength(3);
    expect(sent()).not.toContain("good-4");
    const logs = await gateway().store.usageLogPage(account.id, null, 10);
    expect(logs.map((l) => [l.status, l.cost])).toEqual([["error", nanos(0)]]);
    expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n));
  });

  test("a throttled key rests, so the next streams reach the good key", async () => {
    const { secret } = await fundedKey(gateway().store, "1");
    const sent = since();
    for (let i = 0; i < 4; i++) {
      const res = await postChat(gateway().url, secret, hello("deepseek-v3.2", { stream: true }));
      expect(res.status).toBe(200);
      expect(await res.text()).toEndWith("data: [DONE]\n\n");
    }
    // Rotation passes every key in four requests; the throttled one rests (120 s) since the test before.
    expect(new Set(sent())).toEqual(new Set(["good-4", "broken-1", "broken-3"]));
  });

  test("metrics count attempts per provider, key index and outcome, never the key", async () => {
    const metrics = await scrape(gateway().url);
    expect(metrics.value("gateway_provider_attempts_total", { provider: "openai", key: "1", outcome: "refused" })).toBe(1);
    expect(metrics.value("gateway_provider_attempts_total", { provider: "deepseek", key: "1", outcome: "throttled" })).toBe(1);
    expect(metrics.value("gateway_provider_attempts_total", { provider: "deepseek", key: "3", outcome: "ok" })).toBeGreaterThanOrEqual(1);
    expect(metrics.text).not.toContain("refused-b");
    expect(metrics.text).not.toContain("good-a");
  });
});
