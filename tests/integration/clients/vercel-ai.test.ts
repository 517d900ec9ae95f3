// The Vercel AI SDK (`ai` with `@ai-sdk/openai-compatible`) against the gateway with only the
// base URL changed: text, streams, usage details, tool calls and its error class.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, generateText, jsonSchema, streamText, tool } from "ai";
import { afterAll, expect, test } from "bun:test";
import { nanos } from "../../../src/core/money.ts";
import { fundedKey } from "../../support/accounts.ts";
import { costOf, countingFetch, newestUsageLog, usd9 } from "../../support/clients.ts";
import { describeEachDialect } from "../../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../../support/fake-upstream.ts";
import { useGateway } from "../../support/server.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

describeEachDialect("the Vercel AI SDK (openai-compatible provider)", (dialect) => {
  const gateway = useGateway(dialect, providerEnv(fake));
  const provider = (apiKey: string, options: { includeUsage?: boolean; fetch?: typeof fetch } = {}) =>
    createOpenAICompatible({ name: "gateway", baseURL: `${gateway().url}/v1`, apiKey, ...options });

  test("generateText: the text, usage with cache reads and reasoning, and an exact charge", async () => {
    fake.behave({ usage: { prompt_tokens: 900, completion_tokens: 200 }, usageDetails: { cached_tokens: 600, reasoning_tokens: 50 } });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const result = await generateText({ model: provider(secret)("gpt-4.1-nano"), prompt: "hello", maxOutputTokens: 64 });
    expect(result.text).toBe("Hello from the fake provider");
    expect(result.finishReason).toBe("stop");
    const cost = costOf("gpt-4.1-nano", 900, 200, 600);
    expect(result.usage).toMatchObject({
      inputTokens: 900,
      inputTokenDetails: { noCacheTokens: 300, cacheReadTokens: 600 },
      outputTokens: 200,
      outputTokenDetails: { textTokens: 150, reasoningTokens: 50 },
      totalTokens: 1100,
    });
    expect(result.usage.raw).toMatchObject({ cost_usd: usd9(cost) });
    expect(fake.received.at(-1)!.body.max_tokens).toBe(64);
    expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(2_000_000_000n - cost));
    expect(usd9((await newestUsageLog(gateway().store, account.id)).cost)).toBe(usd9(cost));
  });

  test("streamText: text and reasoning deltas, and the usage from the final chunk", async () => {
    fake.behave({ chunks: 5, reasoningContent: "Let me think.", usage: { prompt_tokens: 70, completion_tokens: 45 }, usageDetails: { cached_tokens: 20, reasoning_tokens: 15 } });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const result = streamText({ model: provider(secret, { includeUsage: true })("deepseek-v4-flash"), prompt: "hello", maxOutputTokens: 64 });
    const parts: string[] = [];
    for await (const text of result.textStream) parts.push(text);
    expect(parts.join("")).toBe("Hello from the fake provider");
    expect(parts.length).toBeGreaterThan(1);
    expect(await result.reasoningText).toBe("Let me think.");
    const usage = await result.usage;
    expect(usage).toMatchObject({
      inputTokens: 70,
      inputTokenDetails: { cacheReadTokens: 20 },
      outputTokens: 45,
      outputTokenDetails: { reasoningTokens: 15 },
      totalTokens: 115,
    });
    const cost = costOf("deepseek-v4-flash", 70, 45, 20);
    expect(usage.raw).toMatchObject({ cost_usd: usd9(cost) });
    expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n - cost));
  });

  test("streamText without includeUsage still gets the usage: the gateway always sends it", async () => {
    fake.behave({ usage: { prompt_tokens: 12, completion_tokens: 9 } });
    const { secret } = await fundedKey(gateway().store, "1");
    const result = streamText({ model: provider(secret)("gpt-4.1-nano"), prompt: "hello", maxOutputTokens: 32 });
    expect(await result.text).toBe("Hello from the fake provider");
    expect(await result.usage).toMatchObject({ inputTokens: 12, outputTokens: 9, totalTokens: 21 });
  });

  test("a tool call with generateText: the tool goes up, the call comes back and is executed", async () => {
    fake.behave({ toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }] });
    const { secret } = await fundedKey(gateway().store, "1");
    const seen: unknown[] = [];
    const result = await generateText({
      model: provider(secret)("gpt-4.1-nano"),
      prompt: "Weather in Paris?",
      maxOutputTokens: 64,
      tools: {
        get_weather: tool({
          description: "The weather in a city",
          inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
          execute: async (input) => {
            seen.push(input);
            return { sky: "clear" };
          },
        }),
      },
    });
    const sentTools = fake.received.at(-1)!.body.tools as { type: string; function: { name: string } }[];
    expect(sentTools.map((t) => [t.type, t.function.name])).toEqual([["function", "get_weather"]]);
    expect(result.finishReason).toBe("tool-calls");
    expect(result.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([["call_fake_0_0", "get_weather", { city: "Paris" }]]);
    expect(seen).toEqual([{ city: "Paris" }]);
    expect(result.toolResults.map((r) => r.output)).toEqual([{ sky: "clear" }]);
  });

  test("streamed tool-call deltas are assembled by streamText", async () => {
    fake.behave({ chunks: 4, toolCalls: [{ name: "get_weather", arguments: '{"city":"Oslo"}' }] });
    const { secret } = await fundedKey(gateway().store, "1");
    const result = streamText({
      model: provider(secret)("gpt-4.1-nano"),
      prompt: "Weather in Oslo?",
      maxOutputTokens: 64,
      tools: { get_weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } } }) }) },
    });
    const calls = await result.toolCalls;
    expect(calls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([["call_fake_0_0", "get_weather", { city: "Oslo" }]]);
  });

  test("an hourly-limit 429 is an APICallError with status 429", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "1", { requestsPerHour: 1 });
    const model = provider(secret)("gpt-4.1-nano");
    await generateText({ model, prompt: "x", maxOutputTokens: 8 });
    // maxRetries 0: the AI SDK retries every 429 (it reads Retry-After, not x-should-retry), with
    // its own 2 s and 4 s back-off when the hint is over a minute.
    const refused = await generateText({ model, prompt: "x", maxOutputTokens: 8, maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(refused)).toBe(true);
    expect((refused as APICallError).statusCode).toBe(429);
    expect((refused as APICallError).responseHeaders?.["x-should-retry"]).toBe("false");
  });

  test("errors surface as APICallError with the gateway's status: 401, and 402 without retries", async () => {
    const wrong = await generateText({ model: provider(`gw-${"Z".repeat(44)}`)("gpt-4.1-nano"), prompt: "x", maxOutputTokens: 8 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(wrong)).toBe(true);
    expect((wrong as APICallError).statusCode).toBe(401);
    expect((wrong as APICallError).message).toContain("Invalid API key");

    const { secret } = await fundedKey(gateway().store, "0.000001");
    const counter = countingFetch();
    const broke = await generateText({ model: provider(secret, { fetch: counter.fetch })("gpt-5.5"), prompt: "x", maxOutputTokens: 1000 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(broke)).toBe(true);
    expect((broke as APICallError).statusCode).toBe(402);
    expect((broke as APICallError).isRetryable).toBe(false);
    expect(counter.calls()).toBe(1);
  });
});
