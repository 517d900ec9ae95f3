// POST /v1/messages through the real @anthropic-ai/sdk: forwarded natively (DeepSeek's
// Anthropic API) and translated (OpenAI's chat completions), streamed and not, a tool round
// trip and thinking, each charged exactly the provider's usage; count_tokens never charged.
import { afterAll, expect, test } from "bun:test";
import type { MessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED, anthropic, messagesEnv, messageUsage, postMessages } from "../support/messages.ts";
import { costOf } from "../support/responses.ts";
import { useGateway, type TestGateway } from "../support/server.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

const FUNDED = 5_000_000_000n;

/** The charge is in the usage log and the ledger, and nothing stays reserved. */
async function expectCharged(gateway: TestGateway, accountId: string, cost: bigint) {
  const [log] = await gateway.store.usageLogPage(accountId, null, 1);
  expect([log!.cost, log!.status]).toEqual([cost, "success"] as never);
  const account = (await gateway.store.getAccount(accountId))!;
  expect([account.balance, account.reserved, account.inflight]).toEqual([FUNDED - cost, 0n, 0] as never);
}

describeEachDialect("Messages API with the Anthropic SDK", (dialect) => {
  const gateway = useGateway(dialect, messagesEnv(fake));

  test.each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])("%s: a Message with its text and the usage it is charged", async (model) => {
    const usage = { input: 1_600, output: 90, cached: 1_536 };
    fake.script({ text: "Hello there", usage });
    const { secret, account } = await fundedKey(gateway().store, "5");
    const message = await anthropic(gateway().url, secret).messages.create({ model, max_tokens: 64, system: "Be brief", messages: [{ role: "user", content: "Say hello" }] });
    expect(message).toMatchObject({ type: "message", role: "assistant", model, stop_reason: "end_turn", content: [{ type: "text", text: "Hello there" }] });
    expect(message.usage as unknown).toEqual(expect.objectContaining(messageUsage(model, usage)));
    await expectCharged(gateway(), account.id, costOf(model, usage.input, usage.output, usage.cached));
    const sent = fake.received.at(-1)!;
    if (model === ANTHROPIC_NATIVE) {
      expect(sent).toEqual({
        path: "/v1/messages",
        body: { model: "deepseek-chat", max_tokens: 64, system: "Be brief", messages: [{ role: "user", content: "Say hello" }] },
        headers: { "x-api-key": "sk-test", "anthropic-version": "2023-06-01" },
      });
    } else {
      expect(sent).toEqual({ path: "/v1/chat/completions", body: { model: "gpt-4.1", messages: [{ role: "system", content: "Be brief" }, { role: "user", content: "Say hello" }], max_tokens: 64 } });
    }
  });

  test.each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])("%s: a stream of Anthropic's events, read by the SDK's helper, ending with the charged usage", async (model) => {
    const usage = { input: 40, output: 3 };
    fake.script({ text: "Hello there friend", usage });
    const { secret, account } = await fundedKey(gateway().store, "5");
    const stream = anthropic(gateway().url, secret).messages.stream({ model, max_tokens: 64, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    const events: MessageStreamEvent[] = [];
    stream.on("streamEvent", (event) => events.push(event));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: "text", text: "Hello there friend" } as never]);
    expect(final.model).toBe(model);
    expect(final.stop_reason).toBe("end_turn");
    const { cost_usd: _cost, ...counts } = messageUsage(model, usage);
    expect(final.usage as unknown).toEqual(expect.objectContaining(counts));
    // The SDK keeps the counts it knows; the charge is in message_delta's usage as sent.
    expect(events.find((e) => e.type === "message_delta")!.usage as unknown).toEqual(messageUsage(model, usage));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("message_start");
    expect(types.slice(-3)).toEqual(["content_block_stop", "message_delta", "message_stop"]);
    expect(types.filter((t) => t === "content_block_delta").length).toBe(3);
    await expectCharged(gateway(), account.id, costOf(model, usage.input, usage.output));
  });

  test.each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])("%s: a tool round trip: tool_use, then its tool_result answered", async (model) => {
    const client = anthropic(gateway().url, (await fundedKey(gateway().store, "5")).secret);
    const tools = [{ name: "weather", description: "Weather in a city", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } }];
    fake.script({ call: { call_id: "toolu_1", name: "weather", arguments: '{"city":"Paris"}' }, usage: { input: 50, output: 10 } });
    const ask = { role: "user" as const, content: "Weather in Paris?" };
    const first = await client.messages.stream({ model, max_tokens: 100, tools, messages: [ask] }).finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } } as never]);

    fake.script({ text: "It is sunny", usage: { input: 70, output: 4 } });
    const messages = [ask, { role: "assistant" as const, content: first.content }, { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "toolu_1", content: "sunny" }] }];
    const second = await client.messages.create({ model, max_tokens: 100, tools, messages });
    expect(second.content).toEqual([{ type: "text", text: "It is sunny" } as never]);
    const sent = fake.received.at(-1)!.body;
    if (model === ANTHROPIC_NATIVE) {
      expect(sent.messages).toEqual(JSON.parse(JSON.stringify(messages)));
      expect(sent.tools).toEqual(tools);
    } else {
      expect(sent.messages).toEqual([
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }] },
        { role: "tool", tool_call_id: "toolu_1", content: "sunny" },
      ]);
      expect(sent.tools).toEqual([{ type: "function", function: { name: "weather", description: "Weather in a city", parameters: tools[0]!.input_schema } }]);
    }
  });

  test.each([false, true])("a translated provider's reasoning_content is a thinking block before the text (streamed: %p)", async (streamed) => {
    fake.script({ reasoning: "Think first.", text: "Then answer", usage: { input: 9, output: 6, reasoning: 3 } });
    const client = anthropic(gateway().url, (await fundedKey(gateway().store, "5")).secret);
    const body = { model: "grok-4-3", max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] };
    const message = streamed ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text"]);
    expect(message.content[0]).toMatchObject({ type: "thinking", thinking: "Think first." });
  });

  test("thinking blocks come back in later turns: as reasoning_content to DeepSeek's chat API, left out for OpenAI's", async () => {
    fake.script({ text: "ok", usage: { input: 9, output: 1 } });
    const { secret } = await fundedKey(gateway().store, "5");
    const messages = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "thinking", thinking: "Greet back.", signature: "" }, { type: "text", text: "Hello" }] },
      { role: "user", content: "again" },
    ];
    const env = { model: "gpt-4.1", max_tokens: 16, messages, thinking: { type: "enabled", budget_tokens: 2048 } };
    expect((await postMessages(gateway().url, secret, env)).status).toBe(200);
    expect((fake.received.at(-1)!.body.messages as unknown[])[1]).toEqual({ role: "assistant", content: "Hello" });
    expect((await postMessages(gateway().url, secret, { ...env, model: "kimi-k2.6" })).status).toBe(200);
    expect(fake.received.at(-1)!.path).toBe("/v1/messages");
  });

  test("cache reads are charged at the cached-input price and cache writes at the input price, natively", async () => {
    const usage = { input: 10_000, output: 200, cached: 6_000, cacheWrites: 3_000 };
    fake.script({ text: "cached", usage });
    const { secret, account } = await fundedKey(gateway().store, "5");
    const stream = anthropic(gateway().url, secret).messages.stream({ model: ANTHROPIC_NATIVE, max_tokens: 300, messages: [{ role: "user", content: "hi" }] });
    const deltas: MessageStreamEvent[] = [];
    stream.on("streamEvent", (event) => event.type === "message_delta" && deltas.push(event));
    await stream.finalMessage();
    expect(deltas.map((event) => (event as { usage: unknown }).usage)).toEqual([messageUsage(ANTHROPIC_NATIVE, usage)]);
    await expectCharged(gateway(), account.id, costOf(ANTHROPIC_NATIVE, usage.input, usage.output, usage.cached));
  });

  test("Claude Code's extras are accepted: system messages, adaptive thinking, output_config, context_management, defer_loading, any beta flag", async () => {
    fake.script({ text: "ok", usage: { input: 9, output: 1 } });
    const { secret } = await fundedKey(gateway().store, "5");
    const body = {
      model: ANTHROPIC_TRANSLATED,
      max_tokens: 32_000,
      system: [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "system", content: "Extra rules" }, { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "1h" } }] }],
      thinking: { type: "adaptive" },
      output_config: { effort: "high" },
      context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
      tools: [{ name: "Bash", input_schema: { type: "object" }, defer_loading: true }, { type: "web_search_20250305", name: "web_search" }],
      metadata: { user_id: "user_abc" },
      a_field_from_next_month: { anything: true },
    };
    const res = await postMessages(gateway().url, secret, body, { "anthropic-beta": "interleaved-thinking-2025-05-14,made-up-flag-2027-01-01" }, "/v1/messages?beta=true");
    expect(res.status).toBe(200);
    // GPT-4.1 does not reason: the thinking asked for is left out, and said so.
    expect(res.headers.get("x-gateway-dropped-params")).toBe("tools.web_search,thinking");
    expect(fake.received.at(-1)!.body).toEqual({
      model: "gpt-4.1",
      messages: [{ role: "system", content: "You are Claude Code." }, { role: "system", content: "Extra rules" }, { role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }],
      user: "user_abc",
      max_tokens: 32_000,
    });
  });

  test("count_tokens answers an estimate and charges nothing", async () => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    const before = fake.received.length;
    const counted = await anthropic(gateway().url, secret).messages.countTokens({ model: ANTHROPIC_NATIVE, messages: [{ role: "user", content: "Hello, world ".repeat(100) }] });
    expect(counted.input_tokens).toBeGreaterThan(200);
    expect(counted.input_tokens).toBeLessThan(1_400);
    expect(fake.received.length).toBe(before);
    const after = (await gateway().store.getAccount(account.id))!;
    expect([after.balance, after.reserved]).toEqual([FUNDED, 0n] as never);
  });
});
