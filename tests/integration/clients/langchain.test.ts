// LangChain's ChatOpenAI (`@langchain/openai`) against the gateway with only the base URL
// changed: invoke, stream, bound tools, usage_metadata and errors.
import { AIMessageChunk } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, expect, test } from "bun:test";
import { nanos } from "../../../src/core/money.ts";
import { fundedKey } from "../../support/accounts.ts";
import { costOf, countingFetch, usd9 } from "../../support/clients.ts";
import { describeEachDialect } from "../../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../../support/fake-upstream.ts";
import { useGateway } from "../../support/server.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

describeEachDialect("LangChain ChatOpenAI", (dialect) => {
  const gateway = useGateway(dialect, providerEnv(fake));
  const chat = (apiKey: string, model: string, fetch?: typeof globalThis.fetch) =>
    new ChatOpenAI({ model, apiKey, maxTokens: 64, configuration: { baseURL: `${gateway().url}/v1`, ...(fetch ? { fetch } : {}) } });

  test("invoke: the answer, usage_metadata with cache reads and reasoning, and an exact charge", async () => {
    fake.behave({ usage: { prompt_tokens: 500, completion_tokens: 120 }, usageDetails: { cached_tokens: 300, reasoning_tokens: 40 }, systemFingerprint: "fp_lc" });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const message = await chat(secret, "gpt-4.1-nano").invoke("hello");
    expect(message.content).toBe("Hello from the fake provider");
    expect(message.usage_metadata).toEqual({
      input_tokens: 500,
      output_tokens: 120,
      total_tokens: 620,
      input_token_details: { cache_read: 300 },
      output_token_details: { reasoning: 40 },
    });
    expect(message.response_metadata).toMatchObject({ model_name: "gpt-4.1-nano", system_fingerprint: "fp_lc", finish_reason: "stop" });
    const cost = costOf("gpt-4.1-nano", 500, 120, 300);
    expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n - cost));
  });

  test("stream: the text in pieces, reasoning_content in additional_kwargs, and the usage once, with cost_usd", async () => {
    fake.behave({ chunks: 4, reasoningContent: "Hmm.", usage: { prompt_tokens: 60, completion_tokens: 30 }, usageDetails: { reasoning_tokens: 8 } });
    const { secret, account } = await fundedKey(gateway().store, "1");
    let whole: AIMessageChunk | undefined;
    let pieces = 0;
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await chat(secret, "deepseek-v4-flash").stream("hello")) {
      chunks.push(chunk);
      if (typeof chunk.content === "string" && chunk.content.length > 0) pieces++;
      whole = whole ? whole.concat(chunk) : chunk;
    }
    expect(pieces).toBeGreaterThan(1);
    expect(whole!.content).toBe("Hello from the fake provider");
    expect(whole!.additional_kwargs.reasoning_content).toBe("Hmm.");
    expect(whole!.usage_metadata).toEqual({
      input_tokens: 60,
      output_tokens: 30,
      total_tokens: 90,
      input_token_details: { cache_read: 0 },
      output_token_details: { reasoning: 8 },
    });
    const cost = costOf("deepseek-v4-flash", 60, 30);
    // LangChain asks for OpenAI's usage chunk (stream_options.include_usage): the usage comes
    // once, in that chunk, so the message it concatenates counts it once, cost_usd one string.
    expect(whole!.response_metadata.usage).toEqual({
      prompt_tokens: 60,
      completion_tokens: 30,
      total_tokens: 90,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 8 },
      cost_usd: usd9(cost),
    });
    expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n - cost));
  });

  // LangChain sends stream_options.include_usage and adds up every usage object it meets when it
  // concatenates chunks (numbers summed, strings joined): a usage both merged into the final chunk
  // and in its own chunk came out doubled (prompt 2,000 for 1,000, cost_usd "0.0012000000.001200000").
  for (const usageInFinalChunk of [false, true]) {
    test(`stream: response_metadata.usage and usage_metadata are the provider's usage once, cost_usd one 9-decimal string (provider's usage ${usageInFinalChunk ? "on its final chunk" : "in a chunk of its own"})`, async () => {
      fake.behave({ chunks: 3, usage: { prompt_tokens: 1000, completion_tokens: 200 }, usageInFinalChunk });
      const { secret, account } = await fundedKey(gateway().store, "1");
      const chunks: AIMessageChunk[] = [];
      for await (const chunk of await chat(secret, "gpt-4.1-nano").stream("hello")) chunks.push(chunk);
      const whole = chunks.reduce((a, b) => a.concat(b));
      const cost = costOf("gpt-4.1-nano", 1000, 200);
      expect(chunks.filter((c) => Object.keys(c.response_metadata.usage ?? {}).length > 0)).toHaveLength(1);
      expect(whole.response_metadata.usage).toEqual({
        prompt_tokens: 1000,
        completion_tokens: 200,
        total_tokens: 1200,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
        cost_usd: usd9(cost),
      });
      expect((whole.response_metadata.usage as { cost_usd: string }).cost_usd).toMatch(/^\d+\.\d{9}$/);
      expect(whole.usage_metadata).toEqual({
        input_tokens: 1000,
        output_tokens: 200,
        total_tokens: 1200,
        input_token_details: { cache_read: 0 },
        output_token_details: { reasoning: 0 },
      });
      expect(whole.response_metadata.finish_reason).toBe("stop");
      expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n - cost));
    });
  }

  test("stream from a provider that reported no usage: LangChain sees none (no zeros), the reservation is charged", async () => {
    fake.behave({ chunks: 3, usage: null });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await chat(secret, "gpt-4.1-nano").stream("hello")) chunks.push(chunk);
    const whole = chunks.reduce((a, b) => a.concat(b));
    expect(whole.content).toBe("Hello from the fake provider");
    expect(whole.usage_metadata).toBeUndefined();
    expect(whole.response_metadata.usage ?? {}).toEqual({});
    const after = (await gateway().store.getAccount(account.id))!;
    expect(after.reserved).toBe(nanos(0));
    expect(after.balance < nanos(1_000_000_000n)).toBe(true);
  });

  test("bindTools: the tool goes up and the call comes back as tool_calls, invoked and streamed", async () => {
    fake.behave({ chunks: 3, toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }] });
    const { secret } = await fundedKey(gateway().store, "1");
    const model = chat(secret, "gpt-4.1-nano").bindTools([weatherTool]);
    const message = await model.invoke("Weather in Paris?");
    expect(fake.received.at(-1)!.body.tools).toEqual([weatherTool]);
    expect(message.tool_calls).toEqual([{ id: "call_fake_0_0", name: "get_weather", args: { city: "Paris" }, type: "tool_call" }]);

    let whole: AIMessageChunk | undefined;
    for await (const chunk of await model.stream("Weather in Paris?")) whole = whole ? whole.concat(chunk) : chunk;
    expect(whole!.tool_calls).toEqual([{ id: "call_fake_0_0", name: "get_weather", args: { city: "Paris" }, type: "tool_call" }]);
  });

  test("an hourly-limit 429 rejects at once with its status: LangChain does not wait out a Retry-After of an hour", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "1", { requestsPerHour: 1 });
    const counter = countingFetch();
    const model = chat(secret, "gpt-4.1-nano", counter.fetch);
    await model.invoke("x");
    const refused = await model.invoke("x").catch((e: unknown) => e);
    expect((refused as { status?: number }).status).toBe(429);
    expect(counter.calls()).toBe(2);
  });

  test("errors carry the gateway's status: 401, and 402 fails without retries", async () => {
    const wrong = await chat(`gw-${"Z".repeat(44)}`, "gpt-4.1-nano").invoke("x").catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(Error);
    expect((wrong as { status?: number }).status).toBe(401);

    const { secret } = await fundedKey(gateway().store, "0.000001");
    const counter = countingFetch();
    const broke = await chat(secret, "gpt-5.5", counter.fetch).invoke("x").catch((e: unknown) => e);
    expect((broke as { status?: number }).status).toBe(402);
    expect(counter.calls()).toBe(1);
  });
});
