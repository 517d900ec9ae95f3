// The Responses API's state, kept by the gateway per account: previous_response_id and
// item_reference continue a conversation on every provider (the provider is sent the whole of
// it, with store: false), each turn charged exactly; GET, DELETE and input_items; another
// account's ids told exactly as unknown ones; store: false and a retention of 0 keep nothing.
import { afterAll, expect, test } from "bun:test";
import { generateText, jsonSchema, stepCountIs, streamText, tool, type ModelMessage } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { MAX_CHAIN_TURNS, storedTurn } from "../../src/core/responses/stored.ts";
import { generateKeySecret, hashKey, keyPrefix } from "../../src/core/keys/secret.ts";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { readJson } from "../support/http.ts";
import { client, costOf, NATIVE, postResponses, responsesEnv, TRANSLATED } from "../support/responses.ts";
import { useGateway } from "../support/server.ts";
import { NO_SEAL } from "../../src/core/reasoning-seal.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());
const FUNDED = 5_000_000_000n;
type Fields = Record<string, unknown>;

/** What the provider was last sent as the conversation, as role: text lines, whichever API it speaks. */
function conversationSent(): string[] {
  const { path, body } = fake.received.at(-1)!;
  const text = (content: unknown): string =>
    typeof content === "string" ? content : (content as Fields[]).map((part) => String(part.text ?? "")).join("");
  if (path === "/v1/chat/completions") {
    return (body.messages as Fields[]).map((m) => `${m.role}: ${m.tool_calls ? `call ${JSON.stringify((m.tool_calls as Fields[]).map((c) => (c.function as Fields).name))}` : text(m.content)}`);
  }
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input as Fields[]);
  return input.map((item) =>
    item.type === "function_call" ? `assistant: call ${JSON.stringify([item.name])}` : item.type === "function_call_output" ? `tool: ${String(item.output)}` : `${item.role}: ${text(item.content)}`);
}

const lastGet = (url: string, secret: string, path: string, method = "GET") => fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${secret}` } });

describeEachDialect("stored responses", (dialect) => {
  const gateway = useGateway(dialect, responsesEnv(fake));

  test.each([NATIVE, TRANSLATED])("%s: three turns by previous_response_id, the provider sent the whole conversation, each turn charged exactly", async (model) => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    const openai = client(gateway().url, secret);
    const turns = [
      { say: "My name is Ada", answer: "Hello Ada", usage: { input: 20, output: 3 } },
      { say: "What is my name?", answer: "Ada", usage: { input: 40, output: 1, cached: 20 } },
      { say: "Spell it", answer: "A-D-A", usage: { input: 60, output: 5, cached: 40 } },
    ];
    let previous: string | undefined;
    let charged = 0n;
    const history: string[] = [];
    for (const [index, turn] of turns.entries()) {
      fake.script({ text: turn.answer, usage: turn.usage });
      const response = await openai.responses.create({ model, input: turn.say, instructions: "Be brief", ...(previous ? { previous_response_id: previous } : {}) });
      expect(response.output_text).toBe(turn.answer);
      expect(response).toMatchObject({ store: true, previous_response_id: previous ?? null });
      history.push(`user: ${turn.say}`);
      // Instructions are this turn's only, as OpenAI has it; the provider keeps nothing.
      expect(conversationSent()).toEqual(model === TRANSLATED ? ["system: Be brief", ...history] : history);
      if (model === NATIVE) expect(fake.received.at(-1)!.body).toMatchObject({ store: false, instructions: "Be brief" });
      history.push(`assistant: ${turn.answer}`);
      charged += costOf(model, turn.usage.input, turn.usage.output, turn.usage.cached);
      const logged = await gateway().store.usageLogPage(account.id, null, 10);
      expect([logged.length, logged[0]!.cost]).toEqual([index + 1, costOf(model, turn.usage.input, turn.usage.output, turn.usage.cached)] as never);
      previous = response.id;
    }
    const after = (await gateway().store.getAccount(account.id))!;
    expect([after.balance, after.reserved]).toEqual([FUNDED - charged, 0n] as never);
  });

  test.each([NATIVE, TRANSLATED])("%s: a streamed turn is kept before its last event, so the next turn can follow at once", async (model) => {
    const { secret } = await fundedKey(gateway().store, "5");
    const openai = client(gateway().url, secret);
    fake.script({ text: "First answer", usage: { input: 10, output: 2 } });
    const first = await openai.responses.stream({ model, input: "one" }).finalResponse();
    fake.script({ text: "Second answer", usage: { input: 20, output: 2 } });
    const second = await openai.responses.create({ model, input: "two", previous_response_id: first.id });
    expect(second.output_text).toBe("Second answer");
    expect(conversationSent()).toEqual(["user: one", "assistant: First answer", "user: two"]);
  });

  test("GET returns the Response as answered, input_items lists its own input, DELETE removes it and its conversation stops there", async () => {
    const { secret } = await fundedKey(gateway().store, "5");
    fake.script({ text: "Stored", usage: { input: 8, output: 1 } });
    const openai = client(gateway().url, secret);
    const answered = await openai.responses.create({ model: TRANSLATED, input: [{ role: "user", content: "a" }, { role: "user", content: "b" }] });
    expect(await openai.responses.retrieve(answered.id)).toEqual(answered);
    const items = await openai.responses.inputItems.list(answered.id, { order: "asc" });
    // OpenAI's shape, whatever the client sent: a message item with its text as an input_text part.
    expect(items.data.map(({ id: _id, ...item }) => item)).toEqual([
      { type: "message", role: "user", status: "completed", content: [{ type: "input_text", text: "a" }] },
      { type: "message", role: "user", status: "completed", content: [{ type: "input_text", text: "b" }] },
    ] as never);
    expect(items.data.every((item) => typeof item.id === "string" && item.id.length > 0)).toBe(true);
    const page = await readJson(await lastGet(gateway().url, secret, `/v1/responses/${answered.id}/input_items?limit=1`));
    expect(page).toMatchObject({ object: "list", has_more: true, data: [{ type: "message", content: [{ type: "input_text", text: "b" }] }] });
    const deleted = await lastGet(gateway().url, secret, `/v1/responses/${answered.id}`, "DELETE");
    expect(await readJson(deleted)).toEqual({ id: answered.id, object: "response", deleted: true });
    expect((await lastGet(gateway().url, secret, `/v1/responses/${answered.id}`)).status).toBe(404);
    const continued = await postResponses(gateway().url, secret, { model: TRANSLATED, input: "c", previous_response_id: answered.id });
    expect([continued.status, await readJson(continued)]).toEqual([400, {
      error: { message: `Previous response with id '${answered.id}' not found.`, type: "invalid_request_error", param: "previous_response_id", code: "previous_response_not_found" },
    }]);
  });

  test("item_reference resolves to the account's stored items", async () => {
    const { secret } = await fundedKey(gateway().store, "5");
    fake.script({ text: "Remembered", usage: { input: 8, output: 1 } });
    const first = await client(gateway().url, secret).responses.create({ model: TRANSLATED, input: "remember this" });
    const outputId = first.output[0]!.id!;
    fake.script({ text: "ok", usage: { input: 9, output: 1 } });
    const res = await postResponses(gateway().url, secret, { model: TRANSLATED, input: [{ type: "item_reference", id: outputId }, { role: "user", content: "and now?" }] });
    expect(res.status).toBe(200);
    expect(conversationSent()).toEqual(["assistant: Remembered", "user: and now?"]);
  });

  test("another account's response and items are told exactly as unknown ones, on every endpoint; nothing is reserved or forwarded", async () => {
    const owner = await fundedKey(gateway().store, "5");
    fake.script({ text: "Mine", usage: { input: 8, output: 1 } });
    const mine = await client(gateway().url, owner.secret).responses.create({ model: TRANSLATED, input: "private" });
    const other = await fundedKey(gateway().store, "5");
    const forwarded = fake.received.length;
    for (const id of [mine.id, "resp_unknown"]) {
      for (const [path, method] of [[`/v1/responses/${id}`, "GET"], [`/v1/responses/${id}`, "DELETE"], [`/v1/responses/${id}/input_items`, "GET"]] as const) {
        const res = await lastGet(gateway().url, other.secret, path, method);
        expect([res.status, await readJson(res)]).toEqual([404, { error: { message: `No response found with id '${id}'.`, type: "invalid_request_error", code: "404" } }]);
      }
      const continued = await postResponses(gateway().url, other.secret, { model: TRANSLATED, input: "x", previous_response_id: id });
      expect(((await readJson(continued)) as { error: Fields }).error).toMatchObject({ param: "previous_response_id", code: "previous_response_not_found", message: `Previous response with id '${id}' not found.` });
    }
    const referenced = await postResponses(gateway().url, other.secret, { model: TRANSLATED, input: [{ type: "item_reference", id: mine.output[0]!.id }] });
    expect([referenced.status, ((await readJson(referenced)) as { error: Fields }).error.message]).toEqual([400, `input[0] is an item_reference to '${mine.output[0]!.id}', which is not a stored item`]);
    expect(fake.received.length).toBe(forwarded);
    const account = (await gateway().store.getAccount(other.account.id))!;
    expect([account.balance, account.reserved, (await gateway().store.usageLogPage(other.account.id, null, 1)).length]).toEqual([FUNDED, 0n, 0] as never);
    expect((await client(gateway().url, owner.secret).responses.retrieve(mine.id)).id).toBe(mine.id);
  });

  test("a key that may not be used is told so when it continues its own conversation, before anything of the stored state", async () => {
    const owner = await fundedKey(gateway().store, "5");
    fake.script({ text: "Mine", usage: { input: 8, output: 1 } });
    const mine = await client(gateway().url, owner.secret).responses.create({ model: TRANSLATED, input: "private" });
    const refusal = async (secret: string, body: Fields) => {
      const res = await postResponses(gateway().url, secret, { model: TRANSLATED, input: "again", ...body });
      const { error } = (await readJson(res)) as { error: Fields };
      return [res.status, error.type, error.message];
    };
    // Held to an address the client is not at: its own response, an unknown one and its own item, each 403.
    const elsewhere = generateKeySecret();
    await gateway().store.createKey({
      accountId: owner.account.id, name: "office", prefix: keyPrefix(elsewhere), hash: hashKey(elsewhere), origin: "cli",
      expiresAt: null, creditLimit: null, usdPerHour: null, requestsPerHour: null, now: Date.now(), allowedIps: ["198.51.100.0/24"],
    });
    const forwarded = fake.received.length;
    for (const body of [{ previous_response_id: mine.id }, { previous_response_id: "resp_unknown" }, { input: [{ type: "item_reference", id: mine.output[0]!.id }] }]) {
      expect(await refusal(elsewhere, body)).toEqual([403, "permission_error", "This API key may not be used from this IP address"]);
    }
    await gateway().store.revokeKey(owner.account.id, owner.key.id, Date.now());
    for (const body of [{ previous_response_id: mine.id }, { previous_response_id: "resp_unknown" }]) {
      expect(await refusal(owner.secret, body)).toEqual([401, "authentication_error", "API key has been revoked"]);
    }
    expect(await refusal(generateKeySecret(), { previous_response_id: mine.id })).toEqual([401, "authentication_error", "Invalid API key"]);
    expect(fake.received.length).toBe(forwarded);
    const account = (await gateway().store.getAccount(owner.account.id))!;
    expect(account.reserved).toBe(0n as never);
  });

  test(`a conversation longer than ${MAX_CHAIN_TURNS} turns is a clear 400, and nothing is reserved or forwarded`, async () => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    const now = Date.now();
    let previous: string | null = null;
    for (let i = 0; i <= MAX_CHAIN_TURNS; i++) {
      const response = { id: `resp_long_${account.id}_${i}`, object: "response", output: [] };
      await gateway().store.saveResponse(storedTurn(account.id, response, [{ role: "user", content: `turn ${i}` }], { model: TRANSLATED, input: "x", previous_response_id: previous }, now, 86_400_000, NO_SEAL));
      previous = response.id;
    }
    const forwarded = fake.received.length;
    const res = await postResponses(gateway().url, secret, { model: TRANSLATED, input: "one more", previous_response_id: previous });
    expect([res.status, await readJson(res)]).toEqual([400, {
      error: { message: `previous_response_id: the conversation has more than ${MAX_CHAIN_TURNS} turns; start a new one`, type: "invalid_request_error", param: "previous_response_id", code: "400" },
    }]);
    expect(fake.received.length).toBe(forwarded);
    expect((await gateway().store.usageLogPage(account.id, null, 1)).length).toBe(0);
  });

  test("store: false is answered as such and cannot be continued or read", async () => {
    const { secret } = await fundedKey(gateway().store, "5");
    fake.script({ text: "Forgotten", usage: { input: 8, output: 1 } });
    const response = await client(gateway().url, secret).responses.create({ model: NATIVE, input: "x", store: false });
    expect((response as unknown as { store: boolean }).store).toBe(false);
    expect((await lastGet(gateway().url, secret, `/v1/responses/${response.id}`)).status).toBe(404);
    const continued = await postResponses(gateway().url, secret, { model: NATIVE, input: "y", previous_response_id: response.id });
    expect(continued.status).toBe(400);
  });

  test("bad ids and pages get a clear 400 and nothing is reserved", async () => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    for (const body of [{ previous_response_id: "" }, { previous_response_id: 7 }, { input: [{ type: "item_reference" }] }, { background: true }]) {
      const res = await postResponses(gateway().url, secret, { model: TRANSLATED, input: "x", ...body });
      expect(res.status).toBe(400);
    }
    fake.script({ text: "x", usage: { input: 1, output: 1 } });
    const stored = await client(gateway().url, secret).responses.create({ model: TRANSLATED, input: "x" });
    for (const query of ["limit=0", "limit=101", "limit=abc", "order=up"]) {
      expect((await lastGet(gateway().url, secret, `/v1/responses/${stored.id}/input_items?${query}`)).status).toBe(400);
    }
    // Ids no store could hold (Postgres refuses a NUL) name nothing, and are told so without a look-up.
    expect((await lastGet(gateway().url, secret, "/v1/responses/resp%00x")).status).toBe(404);
    const nul = await postResponses(gateway().url, secret, { model: TRANSLATED, input: [{ type: "item_reference", id: "msg\u0000" }], previous_response_id: "resp\u0000" });
    expect(((await readJson(nul)) as { error: Fields }).error).toMatchObject({ code: "previous_response_not_found" });
    expect((await gateway().store.usageLogPage(account.id, null, 10)).length).toBe(1);
  });

  test.each([NATIVE, TRANSLATED])("%s: the Vercel AI SDK's default provider: a three-turn chat sending response.messages back", async (id) => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    const model = createOpenAI({ baseURL: `${gateway().url}/v1`, apiKey: secret })(id);
    const messages: ModelMessage[] = [];
    const answers = ["Hello Ada", "Your name is Ada", "Goodbye Ada"];
    for (const [index, answer] of answers.entries()) {
      fake.script({ text: answer, usage: { input: 10 * (index + 1), output: 3 } });
      messages.push({ role: "user", content: `turn ${index + 1}` });
      const result = await generateText({ model, messages });
      expect(result.text).toBe(answer);
      messages.push(...result.response.messages);
    }
    expect(conversationSent()).toEqual(["user: turn 1", "assistant: Hello Ada", "user: turn 2", "assistant: Your name is Ada", "user: turn 3"]);
    const logged = await gateway().store.usageLogPage(account.id, null, 10);
    expect(logged.map((row) => row.cost)).toEqual([30, 20, 10].map((input) => costOf(id, input, 3)) as never);
  });

  test.each([NATIVE, TRANSLATED])("%s: the Vercel AI SDK's tool loop with stopWhen: the call, its output, then the answer", async (id) => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    const model = createOpenAI({ baseURL: `${gateway().url}/v1`, apiKey: secret })(id);
    fake.script(({ body }) => {
      const sent = JSON.stringify(body);
      return sent.includes("sunny") ? { text: "It is sunny in Paris", usage: { input: 60, output: 6 } } : { call: { call_id: "call_w", name: "weather", arguments: '{"city":"Paris"}' }, usage: { input: 40, output: 8 } };
    });
    const weather = tool({ description: "Weather in a city", inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }), execute: async ({ city }) => `sunny in ${city}` });
    const result = await generateText({ model, prompt: "Weather in Paris?", tools: { weather }, stopWhen: stepCountIs(3) });
    expect(result.text).toBe("It is sunny in Paris");
    expect(result.steps.length).toBe(2);
    expect(conversationSent()).toEqual(["user: Weather in Paris?", 'assistant: call ["weather"]', "tool: sunny in Paris"]);
    const logged = await gateway().store.usageLogPage(account.id, null, 10);
    expect(logged.map((row) => row.cost)).toEqual([costOf(id, 60, 6), costOf(id, 40, 8)] as never);
  });

  test("a streamed Vercel AI SDK turn continues from the stored one", async () => {
    const { secret } = await fundedKey(gateway().store, "5");
    const model = createOpenAI({ baseURL: `${gateway().url}/v1`, apiKey: secret })(TRANSLATED);
    fake.script({ text: "Streamed first", usage: { input: 5, output: 2 } });
    const first = streamText({ model, prompt: "one" });
    const messages: ModelMessage[] = [{ role: "user", content: "one" }, ...(await first.response).messages];
    fake.script({ text: "second", usage: { input: 9, output: 1 } });
    await generateText({ model, messages: [...messages, { role: "user", content: "two" }] });
    expect(conversationSent()).toEqual(["user: one", "assistant: Streamed first", "user: two"]);
  });
});

describeEachDialect("stored responses with RESPONSES_RETENTION_DAYS=0", (dialect) => {
  const gateway = useGateway(dialect, { ...responsesEnv(fake), RESPONSES_RETENTION_DAYS: "0" });

  test("nothing is stored: the Response says store: false, and it cannot be read or continued", async () => {
    const { secret } = await fundedKey(gateway().store, "5");
    fake.script({ text: "Not kept", usage: { input: 8, output: 1 } });
    const response = await client(gateway().url, secret).responses.create({ model: TRANSLATED, input: "x" });
    expect((response as unknown as { store: boolean }).store).toBe(false);
    expect((await lastGet(gateway().url, secret, `/v1/responses/${response.id}`)).status).toBe(404);
    expect((await postResponses(gateway().url, secret, { model: TRANSLATED, input: "y", previous_response_id: response.id })).status).toBe(400);
  });
});
