// The official `openai` npm SDK against the gateway with only the base URL changed: what
// DESIGN.md's "OpenAI compatibility beyond the spec's tables" promises it, field by field.
import { afterAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { nanos, parseUsd, type Nanos } from "../../../src/core/money.ts";
import { fundedKey } from "../../support/accounts.ts";
import { costOf, countingFetch, newestUsageLog, usd9 } from "../../support/clients.ts";
import { describeEachDialect } from "../../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../../support/fake-upstream.ts";
import { useGateway } from "../../support/server.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

const ask = (model: string, extra: Record<string, unknown> = {}) =>
  ({ model, messages: [{ role: "user" as const, content: "hello" }], max_tokens: 64, ...extra }) as OpenAI.ChatCompletionCreateParamsNonStreaming;

const streamed = (model: string, extra: Record<string, unknown> = {}) =>
  ({ ...ask(model, extra), stream: true }) as OpenAI.ChatCompletionCreateParamsStreaming;

const weatherTool: OpenAI.ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  },
};

describeEachDialect("the openai npm SDK", (dialect) => {
  const gateway = useGateway(dialect, providerEnv(fake));
  /** A client as a customer makes it: only the key and base URL set, SDK defaults (2 retries) otherwise. */
  const sdk = (secret: string, fetch?: typeof globalThis.fetch) => new OpenAI({ apiKey: secret, baseURL: `${gateway().url}/v1`, ...(fetch ? { fetch } : {}) });

  test("chat create: the answer, usage with its details and cost_usd, and a charge equal to cost_usd and the CSV row", async () => {
    fake.behave({ usage: { prompt_tokens: 1200, completion_tokens: 300 }, usageDetails: { cached_tokens: 1000, reasoning_tokens: 120 }, systemFingerprint: "fp_fake", serviceTier: "default" });
    const { secret, account } = await fundedKey(gateway().store, "5");
    const completion = await sdk(secret).chat.completions.create(ask("gpt-4.1-nano"));
    const cost = costOf("gpt-4.1-nano", 1200, 300, 1000);
    expect(completion.model).toBe("gpt-4.1-nano");
    expect(completion.system_fingerprint).toBe("fp_fake");
    expect(completion.service_tier).toBe("default");
    expect(completion.choices[0]!.message.content).toBe("Hello from the fake provider");
    expect(completion.usage as unknown).toEqual({
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 120 },
      cost_usd: usd9(cost),
    });
    const after = (await gateway().store.getAccount(account.id))!;
    expect(after.balance).toBe(nanos(5_000_000_000n - cost));
    expect(after.reserved).toBe(nanos(0));
    expect(usd9((await newestUsageLog(gateway().store, account.id)).cost)).toBe(usd9(cost));
  });

  test("usage in a provider's own dialect reaches the SDK in OpenAI's meaning: DeepSeek's cache hits, xAI's reasoning outside completion_tokens", async () => {
    const { secret, account } = await fundedKey(gateway().store, "1");
    const client = sdk(secret);
    fake.behave({ usage: { prompt_tokens: 100, completion_tokens: 20 }, usageExtra: { prompt_cache_hit_tokens: 30, prompt_cache_miss_tokens: 70 } });
    const deepseek = await client.chat.completions.create(ask("deepseek-v3.2"));
    const deepseekCost = costOf("deepseek-v3.2", 100, 20, 30);
    expect(deepseek.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 30 }, cost_usd: usd9(deepseekCost) });

    fake.behave({ usage: { prompt_tokens: 100, completion_tokens: 20 }, usageDetails: { reasoning_tokens: 15 } });
    const grok = await client.chat.completions.create(ask("grok-4-20-reasoning"));
    const grokCost = costOf("grok-4-20-reasoning", 100, 35);
    expect(grok.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 35, total_tokens: 135, completion_tokens_details: { reasoning_tokens: 15 }, cost_usd: usd9(grokCost) });
    expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n - deepseekCost - grokCost));
  });

  test("chat stream: text, reasoning_content deltas, and the usage with cost_usd merged into the final chunk", async () => {
    fake.behave({ chunks: 4, reasoningContent: "Think first.", usage: { prompt_tokens: 50, completion_tokens: 40 }, usageDetails: { reasoning_tokens: 10 }, usageInFinalChunk: true });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const stream = await sdk(secret).chat.completions.create({ ...ask("deepseek-v4-flash"), stream: true });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const delta = (c: OpenAI.ChatCompletionChunk) => (c.choices[0]?.delta ?? {}) as { content?: string; reasoning_content?: string };
    expect(chunks.map((c) => delta(c).reasoning_content ?? "").join("")).toBe("Think first.");
    expect(chunks.map((c) => delta(c).content ?? "").join("")).toBe("Hello from the fake provider");
    const cost = costOf("deepseek-v4-flash", 50, 40);
    const last = chunks.at(-1)!;
    expect(last.choices[0]?.finish_reason).toBe("stop");
    expect(last.usage as unknown).toEqual({
      prompt_tokens: 50,
      completion_tokens: 40,
      total_tokens: 90,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 10 },
      cost_usd: usd9(cost),
    });
    expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n - cost));
    expect(usd9((await newestUsageLog(gateway().store, account.id)).cost)).toBe(usd9(cost));
  });

  for (const usageInFinalChunk of [false, true]) {
    test(`chat stream with stream_options.include_usage: code written to OpenAI's docs finds the usage once, in the chunk with no choices (provider's usage ${usageInFinalChunk ? "on its final chunk" : "in a chunk of its own"})`, async () => {
      fake.behave({ chunks: 3, usage: { prompt_tokens: 50, completion_tokens: 40 }, usageInFinalChunk });
      const { secret, account } = await fundedKey(gateway().store, "1");
      const stream = await sdk(secret).chat.completions.create({ ...ask("deepseek-v4-flash"), stream: true, stream_options: { include_usage: true } });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      let usage: unknown = null;
      // As platform.openai.com/docs/api-reference/chat-streaming has it: the usage is on the last chunk, whose choices are empty.
      for await (const chunk of stream) {
        chunks.push(chunk);
        if (chunk.choices.length === 0) usage = chunk.usage;
      }
      const cost = costOf("deepseek-v4-flash", 50, 40);
      expect(usage).toEqual({
        prompt_tokens: 50, completion_tokens: 40, total_tokens: 90,
        prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 }, cost_usd: usd9(cost),
      });
      expect(chunks.filter((chunk) => chunk.usage)).toHaveLength(1);
      expect(chunks.at(-2)!.choices[0]?.finish_reason).toBe("stop");
      expect(chunks.at(-1)).toMatchObject({ object: "chat.completion.chunk", model: "deepseek-v4-flash", choices: [] });
      expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n - cost));
    });
  }

  test("chat stream with stream_options.include_usage from a provider that reported none: no usage anywhere, never zeros; the reservation charged", async () => {
    fake.behave({ chunks: 3, usage: null });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const stream = await sdk(secret).chat.completions.create({ ...ask("deepseek-v4-flash"), stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.filter((chunk) => chunk.usage !== undefined || chunk.choices.length === 0)).toEqual([]);
    expect(chunks.at(-1)!.choices[0]?.finish_reason).toBe("stop");
    const charged = (await newestUsageLog(gateway().store, account.id)).cost;
    expect(charged > 0n).toBe(true);
    expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n - charged));
  });

  test("models.list() pages through the enabled models in OpenAI's shape; models.retrieve() answers one", async () => {
    const { secret } = await fundedKey(gateway().store, "0");
    const models: OpenAI.Model[] = [];
    for await (const model of sdk(secret).models.list()) models.push(model);
    const enabled = (await gateway().store.listModels()).filter((m) => m.enabled);
    expect(models.map((m) => m.id).sort()).toEqual(enabled.map((m) => m.id).sort());
    for (const m of models) expect(m).toEqual({ id: m.id, object: "model", created: expect.any(Number), owned_by: enabled.find((e) => e.id === m.id)!.provider });

    const one = await sdk(secret).models.retrieve("deepseek-v3.2");
    expect(one).toEqual({ id: "deepseek-v3.2", object: "model", created: expect.any(Number), owned_by: "deepseek" });
  });

  test("the model list needs no key", async () => {
    const res = await fetch(`${gateway().url}/v1/models`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: { id: string }[] };
    expect(body.object).toBe("list");
    expect(body.data.map((m) => m.id)).toContain("gpt-5.5");
  });

  test("n: 2 answers two choices and is charged exactly from the usage", async () => {
    fake.behave({ usage: { prompt_tokens: 30, completion_tokens: 80 } });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const completion = await sdk(secret).chat.completions.create(ask("gpt-4.1-nano", { n: 2 }));
    expect(fake.received.at(-1)!.body.n).toBe(2);
    expect(completion.choices.map((c) => [c.index, c.message.content])).toEqual([
      [0, "Hello from the fake provider"],
      [1, "Hello from the fake provider #2"],
    ]);
    const cost = costOf("gpt-4.1-nano", 30, 80);
    expect(completion.usage?.total_tokens).toBe(110);
    expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n - cost));
  });

  test("the reservation covers n × the output ceiling: a balance for one choice's ceiling is refused two", async () => {
    fake.behave({});
    // gpt-4.1-nano: 10,000 output tokens × $0.40/M = $0.004 per choice, plus a small prompt bound.
    const { secret } = await fundedKey(gateway().store, "0.006");
    const client = sdk(secret);
    const before = fake.received.length;
    const refused = await client.chat.completions.create(ask("gpt-4.1-nano", { n: 2, max_tokens: 10_000 })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect(fake.received.length).toBe(before);
    const one = await client.chat.completions.create(ask("gpt-4.1-nano", { n: 1, max_tokens: 10_000 }));
    expect(one.choices).toHaveLength(1);
  });

  test("logprobs and top_logprobs are forwarded and come back, created and streamed", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "1");
    const completion = await sdk(secret).chat.completions.create(ask("gpt-4.1-nano", { logprobs: true, top_logprobs: 2 }));
    expect(fake.received.at(-1)!.body).toMatchObject({ logprobs: true, top_logprobs: 2 });
    const content = completion.choices[0]!.logprobs?.content ?? [];
    expect(content.map((t) => t.token).join("")).toBe("Hello from the fake provider");
    for (const t of content) expect(t.top_logprobs).toHaveLength(2);

    const stream = await sdk(secret).chat.completions.create({ ...ask("gpt-4.1-nano", { logprobs: true, top_logprobs: 1 }), stream: true });
    const tokens: string[] = [];
    for await (const chunk of stream) for (const t of chunk.choices[0]?.logprobs?.content ?? []) tokens.push(t.token);
    expect(tokens.join("")).toBe("Hello from the fake provider");
  });

  test("a function tool round trip: the tool reaches the provider, the call comes back, the result goes up", async () => {
    fake.behave({ toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }] });
    const { secret } = await fundedKey(gateway().store, "1");
    const client = sdk(secret);
    const first = await client.chat.completions.create(ask("gpt-4.1-nano", { tools: [weatherTool], tool_choice: "auto", parallel_tool_calls: false }));
    expect(fake.received.at(-1)!.body).toMatchObject({ tools: [weatherTool], tool_choice: "auto", parallel_tool_calls: false });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.tool_calls).toEqual([{ id: "call_fake_0_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }]);

    fake.behave({ content: "It is sunny in Paris." });
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "user", content: "Weather in Paris?" },
      choice.message as OpenAI.ChatCompletionMessageParam,
      { role: "tool", tool_call_id: "call_fake_0_0", content: '{"sky":"clear"}' },
    ];
    const second = await client.chat.completions.create({ model: "gpt-4.1-nano", messages, tools: [weatherTool], max_tokens: 64 });
    expect(second.choices[0]!.message.content).toBe("It is sunny in Paris.");
    const sent = fake.received.at(-1)!.body.messages as Record<string, unknown>[];
    expect(sent[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_fake_0_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] });
    expect(sent[2]).toEqual({ role: "tool", tool_call_id: "call_fake_0_0", content: '{"sky":"clear"}' });
  });

  test("a custom tool (type: \"custom\") round trip: accepted, forwarded, its call comes back, its result goes up", async () => {
    fake.behave({ toolCalls: [{ type: "custom", name: "run_sql", arguments: "SELECT 1" }] });
    const { secret } = await fundedKey(gateway().store, "1");
    const tool: OpenAI.ChatCompletionCustomTool = { type: "custom", custom: { name: "run_sql", description: "Runs a query", format: { type: "text" } } };
    const completion = await sdk(secret).chat.completions.create(ask("gpt-5.4-mini", { tools: [tool] }));
    expect(fake.received.at(-1)!.body.tools).toEqual([tool]);
    expect(completion.choices[0]!.message.tool_calls).toEqual([{ id: "call_fake_0_0", type: "custom", custom: { name: "run_sql", input: "SELECT 1" } }]);

    fake.behave({ content: "One row." });
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "user", content: "Count" },
      completion.choices[0]!.message as OpenAI.ChatCompletionMessageParam,
      { role: "tool", tool_call_id: "call_fake_0_0", content: "1" },
    ];
    const second = await sdk(secret).chat.completions.create({ model: "gpt-5.4-mini", messages, tools: [tool], max_tokens: 64 });
    expect(second.choices[0]!.message.content).toBe("One row.");
    const sent = fake.received.at(-1)!.body.messages as Record<string, unknown>[];
    expect(sent[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_fake_0_0", type: "custom", custom: { name: "run_sql", input: "SELECT 1" } }] });
    expect(sent[2]).toEqual({ role: "tool", tool_call_id: "call_fake_0_0", content: "1" });
  });

  test("streamed tool-call deltas are accumulated by the SDK's stream helper", async () => {
    fake.behave({ chunks: 4, toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }, { name: "get_weather", arguments: '{"city":"Oslo"}' }] });
    const { secret } = await fundedKey(gateway().store, "1");
    const stream = sdk(secret).chat.completions.stream({ ...streamed("gpt-4.1-nano"), tools: [weatherTool] });
    const done: string[] = [];
    stream.on("tool_calls.function.arguments.done", (e) => done.push(e.arguments));
    const final = await stream.finalChatCompletion();
    expect(done).toEqual(['{"city":"Paris"}', '{"city":"Oslo"}']);
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.choices[0]!.message.tool_calls).toEqual([
      { id: "call_fake_0_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      { id: "call_fake_0_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
    ]);
    expect((final.usage as unknown as { cost_usd: string }).cost_usd).toBe(usd9(costOf("gpt-4.1-nano", 11, 7)));
  });

  test("a refusal passes through, created and streamed", async () => {
    fake.behave({ refusal: "I can't help with that." });
    const { secret } = await fundedKey(gateway().store, "1");
    const completion = await sdk(secret).chat.completions.create(ask("gpt-4.1-nano"));
    expect(completion.choices[0]!.message).toMatchObject({ content: null, refusal: "I can't help with that." });
    const stream = sdk(secret).chat.completions.stream(streamed("gpt-4.1-nano"));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.refusal).toBe("I can't help with that.");
  });

  test("x-gateway-dropped-params names what a family rejects, visible through .withResponse(); absent when nothing was dropped", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "5");
    const client = sdk(secret);
    const gpt5 = await client.chat.completions.create(ask("gpt-5", { temperature: 0.3 })).withResponse();
    expect(gpt5.response.headers.get("x-gateway-dropped-params")).toBe("temperature");
    expect(fake.received.at(-1)!.body.temperature).toBeUndefined();

    const deepseek = await client.chat.completions.create(ask("deepseek-v3.2", { logit_bias: { "42": 5 }, temperature: 0.3 })).withResponse();
    expect(deepseek.response.headers.get("x-gateway-dropped-params")).toBe("logit_bias");
    expect(fake.received.at(-1)!.body).toMatchObject({ temperature: 0.3 });
    expect(fake.received.at(-1)!.body.logit_bias).toBeUndefined();

    const nano = await client.chat.completions.create(ask("gpt-4.1-nano", { temperature: 0.3, logit_bias: { "42": 5 } })).withResponse();
    expect(nano.response.headers.get("x-gateway-dropped-params")).toBeNull();
    expect(fake.received.at(-1)!.body).toMatchObject({ temperature: 0.3, logit_bias: { "42": 5 } });
  });

  // Every Chat Completions parameter OpenAI documents beyond the spec's own, with a valid value.
  const documented: Record<string, unknown> = {
    n: 2, logprobs: true, top_logprobs: 3, logit_bias: { "50256": -100 }, user: "u-1", safety_identifier: "s-1",
    prompt_cache_key: "pck", metadata: { team: "a" }, store: false, parallel_tool_calls: false, reasoning_effort: "low",
    verbosity: "low", service_tier: "auto", modalities: ["text"], audio: { voice: "alloy", format: "mp3" },
    prediction: { type: "content", content: "Hello" }, web_search_options: { search_context_size: "low" },
    seed: 7, stop: ["\n\n"], temperature: 0.5, top_p: 0.9, frequency_penalty: 0.1, presence_penalty: 0.1,
    response_format: { type: "text" }, tools: [weatherTool], tool_choice: "auto",
  };

  test.each(["gpt-4.1-nano", "gpt-5", "gpt-5.4-mini", "o4-mini", "deepseek-v3.2", "deepseek-v4-pro", "kimi-k2.5", "grok-4-3", "grok-4-20-reasoning", "llama-4-scout"])(
    "%s: each documented parameter is forwarded as sent or named in x-gateway-dropped-params, never lost without a word",
    async (model) => {
      fake.behave({});
      const { secret } = await fundedKey(gateway().store, "20");
      const { response } = await sdk(secret).chat.completions.create(ask(model, documented)).withResponse();
      const dropped = (response.headers.get("x-gateway-dropped-params") ?? "").split(",").filter(Boolean);
      const upstream = fake.received.at(-1)!.body;
      const lost = Object.keys(documented).filter((k) => !dropped.includes(k) && !Bun.deepEquals(upstream[k], documented[k]));
      const both = dropped.filter((k) => k in upstream);
      expect({ lost, both }).toEqual({ lost: [], both: [] });
      expect(dropped.every((k) => k in documented)).toBe(true);
    },
  );

  test("a concurrency 429 (Retry-After: 1, x-should-retry: true) is retried by the SDK and succeeds once a slot frees", async () => {
    let release!: () => void;
    fake.behave({ holdUntil: new Promise<void>((resolve) => (release = resolve)) });
    const { secret, account } = await fundedKey(gateway().store, "5");
    // Three streams hold the account's three slots until the fake lets go.
    const held = await Promise.all(
      [0, 1, 2].map(async () => {
        const stream = await sdk(secret).chat.completions.create({ ...streamed("gpt-4.1-nano") });
        const iterator = stream[Symbol.asyncIterator]();
        await iterator.next();
        return iterator;
      }),
    );
    expect((await gateway().store.getAccount(account.id))!.inflight).toBe(3);
    const statuses: number[] = [];
    const headers: (string | null)[] = [];
    let drained: Promise<unknown> | undefined;
    const watching = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      if (res.status === 429 && headers.length === 0) {
        headers.push(res.headers.get("retry-after"), res.headers.get("x-should-retry"));
        release(); // the slots free while the SDK waits to retry
        drained = Promise.all(held.map(async (iterator) => {
          while (!(await iterator.next()).done);
        }));
      }
      return res;
    }) as typeof fetch;
    const completion = await sdk(secret, watching).chat.completions.create(ask("gpt-4.1-nano"));
    expect(completion.choices[0]!.message.content).toBe("Hello from the fake provider");
    // Refused first, then retried until admitted (once, unless the held streams settle slowly).
    expect(statuses[0]).toBe(429);
    expect(statuses.at(-1)).toBe(200);
    expect(headers).toEqual(["1", "true"]);
    await drained;
  });

  test("an hourly-limit 429 is a RateLimitError at once: the SDK makes one request, not three", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "5", { requestsPerHour: 1 });
    const counter = countingFetch();
    const client = sdk(secret, counter.fetch);
    await client.chat.completions.create(ask("gpt-4.1-nano"));
    const upstreamBefore = fake.received.length;
    const error = await client.chat.completions.create(ask("gpt-4.1-nano")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rate = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rate.status).toBe(429);
    expect(rate.headers?.get("x-should-retry")).toBe("false");
    expect(counter.calls()).toBe(2); // the first success and one refused attempt: no retries
    expect(fake.received.length).toBe(upstreamBefore);
  });

  test("a spend limit the request alone exceeds is a 429 without Retry-After, not retried", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "5", { usdPerHour: parseUsd("0.000001") as Nanos });
    const counter = countingFetch();
    const error = await sdk(secret, counter.fetch).chat.completions.create(ask("gpt-4.1-nano")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rate = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rate.headers?.get("retry-after")).toBeNull();
    expect(rate.headers?.get("x-should-retry")).toBe("false");
    expect(counter.calls()).toBe(1);
  });

  test("402 throws at once with x-should-retry: false", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "0.000001");
    const counter = countingFetch();
    const error = await sdk(secret, counter.fetch).chat.completions.create(ask("gpt-5.5", { max_tokens: 1000 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const failure = error as InstanceType<typeof OpenAI.APIError>;
    expect(failure.status).toBe(402);
    expect(failure.type).toBe("insufficient_credits");
    expect(failure.headers?.get("x-should-retry")).toBe("false");
    expect(counter.calls()).toBe(1);
  });

  test("error classes: 401 AuthenticationError, 400 BadRequestError, 404 NotFoundError for an unknown path or model", async () => {
    fake.behave({});
    const wrong = new OpenAI({ apiKey: `gw-${"Z".repeat(44)}`, baseURL: `${gateway().url}/v1`, maxRetries: 0 });
    expect(await wrong.chat.completions.create(ask("gpt-4.1-nano")).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);

    const { secret } = await fundedKey(gateway().store, "1");
    const client = sdk(secret);
    const bad = await client.chat.completions.create(ask("gpt-4.1-nano", { n: 9 })).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("n");
    expect(await client.chat.completions.create(ask("no-such-model")).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.BadRequestError);

    const unknownPath = await client.embeddings.create({ model: "gpt-4.1-nano", input: "x" }).catch((e: unknown) => e);
    expect(unknownPath).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknownPath as InstanceType<typeof OpenAI.NotFoundError>).error).toEqual({ message: expect.any(String), type: "invalid_request_error", code: "404" });
    expect(await client.models.retrieve("no-such-model").catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
