// POST /v1/responses through the official openai SDK: forwarded natively (OpenAI) and translated
// (DeepSeek), streamed and not, a tool round trip, each charged exactly the provider's usage.
import { afterAll, expect, test } from "bun:test";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { client, costOf, NATIVE, postResponses, responsesEnv, responseUsage, TRANSLATED } from "../support/responses.ts";
import { useGateway } from "../support/server.ts";
import type { TestGateway } from "../support/server.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

/** The charge is in the usage log and the ledger, and nothing stays reserved. */
async function expectCharged(gateway: TestGateway, accountId: string, funded: bigint, cost: bigint) {
  const [log] = await gateway.store.usageLogPage(accountId, null, 1);
  expect(log!.cost).toBe(cost as never);
  const account = (await gateway.store.getAccount(accountId))!;
  expect([account.balance, account.reserved, account.inflight]).toEqual([funded - cost, 0n, 0] as never);
}

const FUNDED = 5_000_000_000n;

describeEachDialect("Responses API with the openai SDK", (dialect) => {
  const gateway = useGateway(dialect, responsesEnv(fake));

  test.each([NATIVE, TRANSLATED])("%s: a Response with its text and the usage it is charged", async (model) => {
    fake.script({ text: "Hello there", usage: { input: 120, output: 30, cached: 100 } });
    const { secret, account } = await fundedKey(gateway().store, "5");
    const response = await client(gateway().url, secret).responses.create({ model, input: "Say hello", instructions: "Be brief", max_output_tokens: 64 });
    expect(response.output_text).toBe("Hello there");
    expect(response).toMatchObject({ object: "response", status: "completed", model, store: true });
    expect(response.usage as unknown).toEqual(responseUsage(model, 120, 30, { cached: 100 }));
    await expectCharged(gateway(), account.id, FUNDED, costOf(model, 120, 30, 100));
    const sent = fake.received.at(-1)!;
    if (model === NATIVE) {
      expect(sent).toEqual({ path: "/v1/responses", body: { model: "gpt-4.1", input: "Say hello", instructions: "Be brief", max_output_tokens: 64, store: false } });
    } else {
      expect(sent.path).toBe("/v1/chat/completions");
      expect(sent.body).toEqual({ model: "deepseek-chat", messages: [{ role: "system", content: "Be brief" }, { role: "user", content: "Say hello" }], max_tokens: 64 });
    }
  });

  test.each([NATIVE, TRANSLATED])("%s: a stream of OpenAI's events, numbered, ending with the charged usage", async (model) => {
    fake.script({ text: "Hello there friend", usage: { input: 40, output: 3 } });
    const { secret, account } = await fundedKey(gateway().store, "5");
    const stream = await client(gateway().url, secret).responses.create({ model, input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }], stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
    expect(types.slice(-4)).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
    const deltas = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : []));
    expect(deltas.join("")).toBe("Hello there friend");
    const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: "response.completed" }>;
    expect(completed.response.model).toBe(model);
    expect(completed.response.output_text ?? completed.response.output).toBeTruthy();
    expect(completed.response.usage as unknown).toEqual(responseUsage(model, 40, 3));
    await expectCharged(gateway(), account.id, FUNDED, costOf(model, 40, 3));
  });

  test.each([NATIVE, TRANSLATED])("%s: the SDK's stream helper builds the final Response from the events", async (model) => {
    fake.script({ text: "Built from events", usage: { input: 9, output: 3 } });
    const { secret } = await fundedKey(gateway().store, "5");
    const final = await client(gateway().url, secret).responses.stream({ model, input: "hi" }).finalResponse();
    expect(final.output_text).toBe("Built from events");
    expect(final.usage as unknown).toEqual(responseUsage(model, 9, 3));
  });

  test.each([false, true])("a translated provider's reasoning_content is a reasoning item before the message (streamed: %p)", async (stream) => {
    fake.script({ reasoning: "Think first.", text: "Then answer", usage: { input: 9, output: 6, reasoning: 3 } });
    const { secret } = await fundedKey(gateway().store, "5");
    const openai = client(gateway().url, secret);
    const body = { model: TRANSLATED, input: "hi" };
    const response = stream ? await openai.responses.stream(body).finalResponse() : await openai.responses.create(body);
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(response.output[0]).toMatchObject({ type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "Think first." }] });
    expect(response.output_text).toBe("Then answer");
    expect(response.usage as unknown).toEqual(responseUsage(TRANSLATED, 9, 6, { reasoning: 3 }));
  });

  test.each([NATIVE, TRANSLATED])("%s: a tool round trip: a function_call, then its function_call_output answered", async (model) => {
    const openai = client(gateway().url, (await fundedKey(gateway().store, "5")).secret);
    const tools = [{ type: "function" as const, name: "weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }];
    fake.script({ call: { call_id: "call_1", name: "weather", arguments: '{"city":"Paris"}' }, usage: { input: 50, output: 10 } });
    const first = await openai.responses.create({ model, input: "Weather in Paris?", tools });
    const call = first.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", call_id: "call_1", name: "weather", arguments: '{"city":"Paris"}' });

    fake.script({ text: "It is sunny", usage: { input: 70, output: 4 } });
    const input = [{ role: "user" as const, content: "Weather in Paris?" }, call!, { type: "function_call_output" as const, call_id: "call_1", output: "sunny" }];
    const second = await openai.responses.create({ model, input, tools });
    expect(second.output_text).toBe("It is sunny");
    const sent = fake.received.at(-1)!.body;
    if (model === NATIVE) {
      expect(sent.input).toEqual(JSON.parse(JSON.stringify(input)));
      expect(sent.tools).toEqual(tools);
    } else {
      expect(sent.messages).toEqual([
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
      ]);
      expect(sent.tools).toEqual([{ type: "function", function: { name: "weather", description: "Weather in a city", parameters: tools[0]!.parameters, strict: false } }]);
    }
  });

  test("a streamed function call on a translated provider: its arguments as deltas and done", async () => {
    fake.script({ call: { call_id: "call_2", name: "weather", arguments: '{"city":"Oslo"}' }, usage: { input: 30, output: 8 } });
    const { secret } = await fundedKey(gateway().store, "5");
    const tools = [{ type: "function" as const, name: "weather", parameters: { type: "object" }, strict: null }];
    const stream = await client(gateway().url, secret).responses.create({ model: TRANSLATED, input: "Weather in Oslo?", tools, stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      "response.created", "response.in_progress", "response.output_item.added", "response.function_call_arguments.delta",
      "response.function_call_arguments.done", "response.output_item.done", "response.completed",
    ]);
    const done = events.find((e) => e.type === "response.output_item.done") as Extract<ResponseStreamEvent, { type: "response.output_item.done" }>;
    expect(done.item).toMatchObject({ type: "function_call", call_id: "call_2", name: "weather", arguments: '{"city":"Oslo"}', status: "completed" });
    const final = await client(gateway().url, secret).responses.stream({ model: TRANSLATED, input: "Weather in Oslo?", tools }).finalResponse();
    expect(final.output).toMatchObject([{ type: "function_call", call_id: "call_2", arguments: '{"city":"Oslo"}' }]);
  });

  test.each([
    ["gpt-5", { temperature: 0.3, reasoning: { effort: "low" } }, "temperature"],
    [TRANSLATED, { reasoning: { effort: "low" }, text: { verbosity: "low" } }, "reasoning,text.verbosity"],
  ])("%s: fields the family rejects are left out and named as the Responses API names them", async (model, fields, dropped) => {
    fake.script({ text: "ok", usage: { input: 5, output: 1 } });
    const { secret } = await fundedKey(gateway().store, "5");
    const res = await postResponses(gateway().url, secret, { model, input: "hi", ...fields });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-dropped-params")).toBe(dropped);
    const sent = fake.received.at(-1)!.body;
    expect(["temperature", "reasoning", "reasoning_effort", "verbosity"].filter((f) => f in sent)).toEqual(model === "gpt-5" ? ["reasoning"] : []);
  });

  test("xAI is forwarded natively, its reasoning tokens (reported beside output_tokens) counted as output", async () => {
    fake.script({ text: "303", usage: { input: 32, output: 9, cached: 8, reasoning: 110 } });
    const { secret, account } = await fundedKey(gateway().store, "5");
    const response = await client(gateway().url, secret).responses.create({ model: "grok-4-20-reasoning", input: "What is 101*3?" });
    expect(fake.received.at(-1)!.path).toBe("/v1/responses");
    expect(response.usage as unknown).toEqual(responseUsage("grok-4-20-reasoning", 32, 119, { cached: 8, reasoning: 110 }));
    await expectCharged(gateway(), account.id, FUNDED, costOf("grok-4-20-reasoning", 32, 119, 8));
  });
});
