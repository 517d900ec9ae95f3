import { afterAll, beforeAll, expect, test } from "bun:test";
import { FALLBACK_CATALOG, PROVIDERS } from "../../src/core/catalog.ts";
import { requestCost } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { spawnServe, type ServeProcess } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { postEstimator, ask } from "../support/estimator.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { scrape, type Scrape } from "../support/metrics.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

const CHAT = { method: "POST", route: "/v1/chat/completions" };
const chatRequests = (status: number, model: string) => ({ ...CHAT, status: String(status), model });
const priceOf = (id: string) => FALLBACK_CATALOG.find((m) => m.id === id)!;

describeEachDialect("GET /metrics", (dialect) => {
  // The estimator model goes to the fake provider, so a failing fake makes the estimator fall back.
  const gateway = useGateway(dialect, { ...providerEnv(fake), ESTIMATOR_MODEL: "gpt-4.1-nano" });

  /** Waits until the series `name{labels}` has moved by `by` from what `before` saw (0 if absent), and returns the new scrape. */
  async function moved(before: Scrape, name: string, labels: Record<string, string>, by: number): Promise<Scrape> {
    let after = before;
    await waitFor(async () => {
      after = await scrape(gateway().url);
      return (after.value(name, labels) ?? 0) === (before.value(name, labels) ?? 0) + by;
    }, `${name} ${JSON.stringify(labels)} to move by ${by}`);
    return after;
  }

  test("answers the Prometheus text format, open without METRICS_TOKEN, with process metrics and the alerting series at zero", async () => {
    const res = await fetch(`${gateway().url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const metrics = await scrape(gateway().url);
    expect(metrics.value("process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(metrics.value("process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(metrics.value("gateway_reservations_open")).toBe(0);
    for (const provider of PROVIDERS) expect(metrics.value("gateway_provider_errors_total", { provider })).toBe(0);
    expect(metrics.value("gateway_estimator_fallbacks_total")).toBeDefined();
  });

  test("a chat completion counts the request by route, status and model, times it and its upstream, and adds its tokens and USD", async () => {
    fake.behave({ usage: { prompt_tokens: 1200, completion_tokens: 345 } });
    const { secret } = await fundedKey(gateway().store, "5");
    const before = await scrape(gateway().url);
    const res = await postChat(gateway().url, secret, hello("gpt-4.1-nano"));
    expect(res.status).toBe(200);
    await res.text();

    const after = await moved(before, "gateway_http_requests_total", chatRequests(200, "gpt-4.1-nano"), 1);
    const grew = (name: string, labels: Record<string, string>) => (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);
    expect(grew("gateway_http_request_duration_seconds_count", { ...CHAT, model: "gpt-4.1-nano" })).toBe(1);
    expect(grew("gateway_upstream_duration_seconds_count", { provider: "openai", model: "gpt-4.1-nano" })).toBe(1);
    expect(grew("gateway_tokens_total", { model: "gpt-4.1-nano", type: "prompt" })).toBe(1200);
    expect(grew("gateway_tokens_total", { model: "gpt-4.1-nano", type: "completion" })).toBe(345);
    const usd = Number(requestCost(1200, 345, priceOf("gpt-4.1-nano"))) / 1e9;
    expect(grew("gateway_charged_usd_total", { model: "gpt-4.1-nano" })).toBeCloseTo(usd, 9);
  });

  test("a stream is counted, with its tokens, once it has ended", async () => {
    fake.behave({ chunks: 4, usage: { prompt_tokens: 30, completion_tokens: 20 } });
    const { secret } = await fundedKey(gateway().store, "5");
    const before = await scrape(gateway().url);
    const res = await postChat(gateway().url, secret, hello("deepseek-v3.2", { stream: true }));
    expect(await res.text()).toEndWith("data: [DONE]\n\n");

    const after = await moved(before, "gateway_http_requests_total", chatRequests(200, "deepseek-v3.2"), 1);
    expect(after.value("gateway_tokens_total", { model: "deepseek-v3.2", type: "completion" })).toBe(
      (before.value("gateway_tokens_total", { model: "deepseek-v3.2", type: "completion" }) ?? 0) + 20,
    );
  });

  test("a provider answering 500 counts a provider error for that provider and a 502 for the model", async () => {
    fake.behave({ status: 500 });
    const { secret } = await fundedKey(gateway().store, "5");
    const before = await scrape(gateway().url);
    expect((await postChat(gateway().url, secret, hello("kimi-k2.5"))).status).toBe(502);

    const after = await moved(before, "gateway_http_requests_total", chatRequests(502, "kimi-k2.5"), 1);
    expect(after.value("gateway_provider_errors_total", { provider: "moonshot" })).toBe(
      before.value("gateway_provider_errors_total", { provider: "moonshot" })! + 1,
    );
    expect(after.value("gateway_provider_errors_total", { provider: "openai" })).toBe(
      before.value("gateway_provider_errors_total", { provider: "openai" }),
    );
  });

  test("a stream the provider cuts short counts a provider error", async () => {
    fake.behave({ chunks: 4, breakAfter: 2 });
    const { secret } = await fundedKey(gateway().store, "5");
    const before = await scrape(gateway().url);
    const res = await postChat(gateway().url, secret, hello("grok-4-3", { stream: true }));
    expect(await res.text()).toContain('"provider_error"');
    await moved(before, "gateway_provider_errors_total", { provider: "xai" }, 1);
  });

  test("a rejected request (400 from the provider) is not a provider error", async () => {
    fake.behave({ status: 400, errorMessage: "context too long" });
    const { secret } = await fundedKey(gateway().store, "5");
    const before = await scrape(gateway().url);
    expect((await postChat(gateway().url, secret, hello("llama-4-scout"))).status).toBe(400);
    const after = await moved(before, "gateway_http_requests_total", chatRequests(400, "llama-4-scout"), 1);
    expect(after.value("gateway_provider_errors_total", { provider: "meta" })).toBe(before.value("gateway_provider_errors_total", { provider: "meta" }));
  });

  test("the open reservations gauge counts a stream in flight and drops when its client goes away", async () => {
    fake.behave({ chunks: 4, stallAfter: 1 });
    const { secret } = await fundedKey(gateway().store, "5");
    const res = await postChat(gateway().url, secret, hello("gpt-4.1-nano", { stream: true }));
    const reader = res.body!.getReader();
    await reader.read(); // the first chunk: the reservation is held and the provider has gone quiet
    expect((await scrape(gateway().url)).value("gateway_reservations_open")).toBe(1);
    await reader.cancel();
    await waitFor(async () => (await scrape(gateway().url)).value("gateway_reservations_open") === 0, "the reservation to be released");
  });

  test("an estimator whose model fails falls back to the deterministic estimate and counts it", async () => {
    fake.behave({ status: 500 });
    const before = await scrape(gateway().url);
    expect((await postEstimator(gateway().url, ask("a chatbot for 100 users"))).status).toBe(200);
    await moved(before, "gateway_estimator_fallbacks_total", {}, 1);
  });

  test("label values are bounded: a 404 is counted as (unmatched), and no path, unknown model, key or account appears", async () => {
    const marker = crypto.randomUUID();
    const { secret, account } = await fundedKey(gateway().store, "5");
    const before = await scrape(gateway().url);
    expect((await fetch(`${gateway().url}/no-such-page-${marker}`)).status).toBe(404);
    expect((await postChat(gateway().url, secret, hello(`model-${marker}`))).status).toBe(400);

    const after = await moved(before, "gateway_http_requests_total", { method: "GET", route: "(unmatched)", status: "404", model: "" }, 1);
    await moved(before, "gateway_http_requests_total", chatRequests(400, ""), 1);
    for (const leak of [marker, secret, secret.slice(0, 10), account.id]) expect(after.text).not.toContain(leak);
  });
});

describeEachDialect("GET /metrics with METRICS_TOKEN, under BASE_PATH", (dialect) => {
  const token = `metrics-${crypto.randomUUID()}`;
  const gateway = useGateway(dialect, { METRICS_TOKEN: token, BASE_PATH: "/api" });

  test.each([
    ["no Authorization header", {}],
    ["a wrong token", { authorization: "Bearer not-the-token" }],
    ["the token without Bearer", { authorization: token }],
  ])("answers 401 to %s", async (_what, headers: Record<string, string>) => {
    const res = await fetch(`${gateway().url}/metrics`, { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(await res.json()).toEqual({ error: "Unauthorized" });
  });

  test("answers the metrics to the bearer of the token, with route labels that leave out BASE_PATH", async () => {
    expect(gateway().url).toEndWith("/api");
    expect((await fetch(`${gateway().url}/health`)).status).toBe(200);
    const health = { method: "GET", route: "/health", status: "200", model: "" };
    await waitFor(async () => ((await scrape(gateway().url, token)).value("gateway_http_requests_total", health) ?? 0) >= 1, "the health check to be counted");
    expect((await scrape(gateway().url, token)).value("gateway_reservations_open")).toBe(0);
  });

  test("answers 405 to other methods", async () => {
    const res = await fetch(`${gateway().url}/metrics`, { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });
});

describeEachDialect("GET /metrics of gateway serve", (dialect) => {
  let testDb: TestDatabase;
  let server: ServeProcess;
  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    server = await spawnServe({ DATABASE_URL: testDb.url });
  });
  afterAll(async () => {
    await server.stop();
    await testDb.drop();
  });

  test("times the database's queries and transactions", async () => {
    const kinds = ["query", "transaction"] as const;
    const count = (metrics: Scrape, kind: string) => metrics.value("gateway_db_query_duration_seconds_count", { kind }) ?? 0;
    const before = await scrape(server.url);
    expect((await fetch(`${server.url}/health`)).status).toBe(200); // a query
    expect((await fetch(`${server.url}/auth/signup`, { method: "POST", body: JSON.stringify({ email: `m-${crypto.randomUUID()}@example.com`, password: "long enough" }) })).status).toBe(201); // transactions
    const after = await scrape(server.url);
    for (const kind of kinds) expect({ kind, grew: count(after, kind) > count(before, kind) }).toEqual({ kind, grew: true });
    expect(after.value("gateway_db_query_duration_seconds_bucket", { kind: "query", le: "+Inf" })).toBe(count(after, "query"));
  });
});
