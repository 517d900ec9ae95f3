// OpenAI compatibility beyond the spec's tables (DESIGN.md): documented fields forwarded or
// named as dropped, the provider's answer relayed whole, usage normalised with its charge.
import { afterAll, expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { postChat, wireUsage } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { startScriptedProvider } from "../support/scripted-provider.ts";
import { useGateway } from "../support/server.ts";

const provider = startScriptedProvider();
afterAll(() => provider.stop());
const env = Object.fromEntries(
  ["OPENAI", "DEEPSEEK", "MOONSHOT", "XAI", "META"].flatMap((p) => [[`${p}_BASE_URL`, provider.baseUrl], [`${p}_API_KEY`, "sk-test"]]),
);
const priceOf = (id: string) => FALLBACK_CATALOG.find((m) => m.id === id)!;

// An OpenAI answer with the fields clients read beyond the spec's table (platform.openai.com/docs/api-reference/chat/object).
const OPENAI_ANSWER = {
  id: "chatcmpl-abc",
  object: "chat.completion",
  created: 1_741_569_952,
  model: "gpt-4.1-2025-04-14",
  choices: [
    { index: 0, message: { role: "assistant", content: "Hi", refusal: null, annotations: [] }, logprobs: { content: [{ token: "Hi", logprob: -0.1, bytes: [72, 105], top_logprobs: [] }] }, finish_reason: "stop" },
    { index: 1, message: { role: "assistant", content: "Hello", refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" },
  ],
  usage: {
    prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500,
    prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  },
  service_tier: "default",
  system_fingerprint: "fp_3a6b4b1c2d",
};

describeEachDialect("OpenAI compatibility", (dialect) => {
  const gateway = useGateway(dialect, env);

  test("a non-streamed answer keeps every provider field but model, object and usage, which carries the exact charge", async () => {
    provider.answer(OPENAI_ANSWER);
    const { secret, account } = await fundedKey(gateway().store, "5");
    const res = await postChat(gateway().url, secret, { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], n: 2, logprobs: true });
    expect(res.status).toBe(200);
    const cost = requestCost(1200, 300, priceOf("gpt-4.1"), 1024);
    expect(await readJson(res)).toEqual({
      ...OPENAI_ANSWER,
      model: "gpt-4.1",
      usage: {
        ...wireUsage(1200, 300, cost, { cached: 1024 }),
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
    });
    const [log] = await gateway().store.usageLogPage(account.id, null, 1);
    expect(log!.cost).toBe(cost);
    expect(provider.received.at(-1)).toMatchObject({ n: 2, logprobs: true });
  });

  test("fields the family rejects are left out and named in x-gateway-dropped-params", async () => {
    provider.answer(OPENAI_ANSWER);
    const { secret } = await fundedKey(gateway().store, "5");
    const res = await postChat(gateway().url, secret, {
      model: "gpt-5", messages: [{ role: "user", content: "hi" }], temperature: 0.3, logit_bias: { "50256": -100 }, reasoning_effort: "low", verbosity: "low", made_up: true,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-dropped-params")).toBe("temperature,logit_bias");
    const sent = provider.received.at(-1)!;
    expect(sent.reasoning_effort).toBe("low");
    expect(sent.verbosity).toBe("low");
    expect("temperature" in sent || "logit_bias" in sent || "made_up" in sent).toBe(false);

    const kept = await postChat(gateway().url, secret, { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], temperature: 0.3 });
    expect(kept.headers.get("x-gateway-dropped-params")).toBeNull();
  });

  test("a stream relays every choice's chunks and its extra fields, and ends with the usage and its charge", async () => {
    const chunk = (choice: Record<string, unknown>) => ({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4.1", system_fingerprint: "fp_x", choices: [choice] });
    provider.answer({}, [
      chunk({ index: 0, delta: { role: "assistant", content: "A", refusal: null }, logprobs: null, finish_reason: null }),
      chunk({ index: 1, delta: { role: "assistant", content: "B" }, logprobs: null, finish_reason: null }),
      chunk({ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }),
      chunk({ index: 1, delta: {}, logprobs: null, finish_reason: "length" }),
      { id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4.1", choices: [], usage: { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 } },
    ]);
    const { secret } = await fundedKey(gateway().store, "5");
    const res = await postChat(gateway().url, secret, { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], n: 2, stream: true });
    const events = (await res.text()).split("\n\n").filter(Boolean).map((e) => e.slice("data: ".length));
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.map((c) => [c.choices[0].index, c.choices[0].finish_reason])).toEqual([[0, null], [1, null], [0, "stop"], [1, "length"]]);
    expect(chunks.every((c) => c.model === "gpt-4.1" && c.system_fingerprint === "fp_x")).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "A", refusal: null });
    expect(chunks.at(-1).usage).toEqual(wireUsage(20, 4, requestCost(20, 4, priceOf("gpt-4.1"))));
  });

  test("n multiplies the output ceiling in the reservation", async () => {
    provider.answer(OPENAI_ANSWER);
    // gpt-4.1 output is $8/M: 1,000 tokens × 3 choices = $0.024 > $0.02, while one choice fits.
    const { secret } = await fundedKey(gateway().store, "0.02");
    const body = { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], max_tokens: 1000 };
    expect((await postChat(gateway().url, secret, { ...body, n: 3 })).status).toBe(402);
    const sentBefore = provider.received.length;
    expect((await postChat(gateway().url, secret, { ...body, n: 1 })).status).toBe(200);
    expect(provider.received.length).toBe(sentBefore + 1);
  });

  test("GET /v1/models lists the enabled models in OpenAI's shape, with or without a key", async () => {
    const res = await fetch(`${gateway().url}/v1/models`);
    expect(res.status).toBe(200);
    const list = await readJson(res);
    expect(list.object).toBe("list");
    expect(list.data).toHaveLength(FALLBACK_CATALOG.length);
    expect(list.data[0]).toEqual({ id: FALLBACK_CATALOG[0]!.id, object: "model", created: expect.any(Number), owned_by: FALLBACK_CATALOG[0]!.provider });
    const withKey = await fetch(`${gateway().url}/v1/models/deepseek-v3.2`, { headers: { authorization: "Bearer anything" } });
    expect(await readJson(withKey)).toEqual({ id: "deepseek-v3.2", object: "model", created: expect.any(Number), owned_by: "deepseek" });
  });

  test("unknown /v1 paths and models answer 404 in the chat error shape; other methods 405", async () => {
    for (const path of ["/v1/nothing-here", "/v1/models/no-such-model", "/v1"]) {
      const res = await fetch(`${gateway().url}${path}`);
      expect(res.status).toBe(404);
      expect(await readJson(res)).toEqual({ error: { message: expect.any(String), type: "invalid_request_error", code: "404" } });
    }
    const post = await fetch(`${gateway().url}/v1/models`, { method: "POST" });
    expect(post.status).toBe(405);
    expect((await readJson(post)).error.code).toBe("405");
  });
});

describeEachDialect("OpenAI compatibility: the cached-input price", (dialect) => {
  const gateway = useGateway(dialect, env);

  test("cached prompt tokens are charged at the model's cached-input price", async () => {
    provider.answer(OPENAI_ANSWER);
    // Set before this gateway's first chat request, so its catalog cache reads it at once.
    await gateway().store.updateModel("gpt-4.1-mini", { cachedInputPerMTok: nanos(100_000_000n) });
    const { secret, account } = await fundedKey(gateway().store, "5");
    const res = await postChat(gateway().url, secret, { model: "gpt-4.1-mini", messages: [{ role: "user", content: "hi" }] });
    // 176 uncached × $0.40/M + 1,024 cached × $0.10/M + 300 × $1.60/M
    const cost = nanos(176n * 400n + 1024n * 100n + 300n * 1600n);
    expect((await readJson(res)).usage.cost_usd).toBe("0.000652800");
    const [log] = await gateway().store.usageLogPage(account.id, null, 1);
    expect(log!.cost).toBe(cost);
  });
});
