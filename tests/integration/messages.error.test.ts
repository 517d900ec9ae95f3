// POST /v1/messages when it cannot answer: Anthropic's envelope and types with the gateway's
// statuses and retry hints, nothing reserved for bad input, and a failed or abandoned stream
// released like a chat stream.
import { afterAll, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { nanos } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { readJson } from "../support/http.ts";
import { ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED, anthropic, messagesEnv, postMessages } from "../support/messages.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());
const OK = { text: "fine", usage: { input: 5, output: 1 } };
const HI = { max_tokens: 64, messages: [{ role: "user", content: "hi" }] };

/** Anthropic's error envelope, with the gateway's request id. */
const envelope = (type: string, message: unknown = expect.any(String)) => ({ type: "error", error: { type, message }, request_id: expect.any(String) });

describeEachDialect("Messages API errors", (dialect) => {
  const gateway = useGateway(dialect, { ...messagesEnv(fake), MAX_CONCURRENT_REQUESTS: "1", AGENT_MAX_BODY_BYTES: "100000" });

  /** Nothing charged, nothing held; `logged`: the usage log says the request failed. */
  async function expectReleased(accountId: string, funded: bigint, logged = true) {
    await waitFor(async () => (await gateway().store.getAccount(accountId))!.inflight === 0, "the release");
    const account = (await gateway().store.getAccount(accountId))!;
    expect([account.balance, account.reserved]).toEqual([nanos(funded), nanos(0)] as never);
    const [log] = await gateway().store.usageLogPage(accountId, null, 1);
    if (logged) expect([log?.status, log?.cost]).toEqual(["error", nanos(0)] as never);
    else expect(log).toBeUndefined();
  }

  test("401 without a key, with a malformed or an unknown one, by x-api-key or bearer; the SDK raises its AuthenticationError", async () => {
    const model = ANTHROPIC_NATIVE;
    const missing = await postMessages(gateway().url, null, { model, ...HI });
    // Anthropic's clients send x-api-key: the 401 names it.
    expect([missing.status, await readJson(missing)]).toEqual([401, envelope("authentication_error", "Missing API key: send x-api-key: <API key> (or Authorization: Bearer <API key>)")]);
    const uncounted = await postMessages(gateway().url, null, { model, ...HI }, {}, "/v1/messages/count_tokens");
    expect([uncounted.status, await readJson(uncounted)]).toEqual([401, envelope("authentication_error", "Missing API key: send x-api-key: <API key> (or Authorization: Bearer <API key>)")]);
    const bearer = await postMessages(gateway().url, null, { model, ...HI }, { authorization: "Bearer gw-nope" });
    expect([bearer.status, await readJson(bearer)]).toEqual([401, envelope("authentication_error", "Invalid API key")]);
    const refused = await anthropic(gateway().url, `gw-${"A".repeat(48)}`).messages.create({ model, max_tokens: 8, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
  });

  test.each([
    [{ model: ANTHROPIC_NATIVE, messages: HI.messages }, "max_tokens: Field required"],
    [{ model: ANTHROPIC_NATIVE, ...HI, tools: [{ name: "Bash", description: "run" }] }, "tools.0.custom.input_schema: Field required"],
    [{ model: ANTHROPIC_NATIVE, ...HI, max_tokens: 0 }, "max_tokens: must be an integer from 1 to 200000"],
    [{ model: ANTHROPIC_NATIVE, ...HI, messages: [{ role: "robot", content: "hi" }] }, 'messages.0.role: must be "user" or "assistant"'],
    [{ model: ANTHROPIC_NATIVE, ...HI, messages: [{ role: "user", content: [{ type: "text" }] }] }, "messages.0.content.0.text: must be a string"],
    [{ model: ANTHROPIC_NATIVE, ...HI, messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: "x" }] }] }, "messages.0.content.0.input: must be an object"],
    [{ model: ANTHROPIC_NATIVE, ...HI, tool_choice: { type: "tool" } }, "tool_choice.name: Field required"],
    [{ model: ANTHROPIC_NATIVE, ...HI, temperature: 1.5 }, "temperature: must be a number from 0 to 1"],
    [{ model: "no-such-model", ...HI }, "The model `no-such-model` does not exist or is not enabled"],
  ])("400 naming the field, nothing reserved or forwarded: %j", async (body, message) => {
    const { secret, account } = await fundedKey(gateway().store, "2");
    const before = fake.received.length;
    const res = await postMessages(gateway().url, secret, body);
    expect([res.status, await readJson(res)]).toEqual([400, envelope("invalid_request_error", message)]);
    expect(fake.received.length).toBe(before);
    await expectReleased(account.id, 2_000_000_000n, false);
  });

  test("404 not_found_error for a claude-* model the catalog does not serve; the SDK raises its NotFoundError", async () => {
    const { secret } = await fundedKey(gateway().store, "2");
    const error = await anthropic(gateway().url, secret).messages.create({ model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as InstanceType<typeof Anthropic.NotFoundError>).error).toEqual(envelope("not_found_error", "The model `claude-sonnet-4-5` does not exist or is not enabled"));
  });

  test("402 billing_error when the balance does not cover max_tokens, naming the largest that fits, not retried", async () => {
    const { secret } = await fundedKey(gateway().store, "0.001");
    const res = await postMessages(gateway().url, secret, { model: ANTHROPIC_TRANSLATED, max_tokens: 32_000, messages: HI.messages });
    const body = (await readJson(res)) as { error: { message: string } };
    expect([res.status, body] as unknown[]).toEqual([402, envelope("billing_error")]);
    expect(body.error.message).toMatch(/max_tokens/);
    expect(res.headers.get("x-should-retry")).toBe("false");
  });

  test("413 request_too_large past AGENT_MAX_BODY_BYTES; a body above chat's 64 KB but within it is served", async () => {
    fake.script(OK);
    const { secret } = await fundedKey(gateway().store, "2");
    const big = await postMessages(gateway().url, secret, { model: ANTHROPIC_TRANSLATED, ...HI, system: "x".repeat(100_001) });
    expect([big.status, await readJson(big)]).toEqual([413, envelope("request_too_large", "Request body exceeds 100000 bytes")]);
    const agentSized = await postMessages(gateway().url, secret, { model: ANTHROPIC_TRANSLATED, ...HI, system: "x".repeat(70_000) });
    expect(agentSized.status).toBe(200);
  });

  test("429 rate_limit_error with retry-after while the account's requests are all in flight", async () => {
    let release!: () => void;
    fake.script({ ...OK, holdUntil: new Promise((resolve) => (release = () => resolve(undefined))) });
    const { secret } = await fundedKey(gateway().store, "2");
    const open = await postMessages(gateway().url, secret, { model: ANTHROPIC_NATIVE, ...HI, stream: true });
    const reader = open.body!.getReader();
    await reader.read();
    const busy = await postMessages(gateway().url, secret, { model: ANTHROPIC_NATIVE, ...HI });
    expect([busy.status, await readJson(busy)]).toEqual([429, envelope("rate_limit_error")]);
    expect([busy.headers.get("retry-after"), busy.headers.get("x-should-retry")]).toEqual(["1", "true"]);
    release();
    while (!(await reader.read()).done);
  });

  test.each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])("%s: a provider failure is 502 api_error, released", async (model) => {
    fake.script({ ...OK, status: 500 });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postMessages(gateway().url, secret, { model, ...HI });
    expect([res.status, await readJson(res)]).toEqual([502, envelope("api_error")]);
    expect(res.headers.get("x-should-retry")).toBe("true");
    await expectReleased(account.id, 2_000_000_000n);
  });

  test("a provider's 529 is passed on as 529 overloaded_error, released; the chat door calls it a 502", async () => {
    fake.script({ ...OK, status: 529 });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postMessages(gateway().url, secret, { model: ANTHROPIC_NATIVE, ...HI });
    expect([res.status, await readJson(res)]).toEqual([529, envelope("overloaded_error", "Upstream provider is overloaded (status 529)")]);
    expect(res.headers.get("x-should-retry")).toBe("true");
    await expectReleased(account.id, 2_000_000_000n);
    const chat = await fetch(`${gateway().url}/v1/chat/completions`, {
      method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: JSON.stringify({ model: ANTHROPIC_NATIVE, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(502);
  });

  test.each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])("%s: a stream cut mid-way ends with an error event and is released", async (model) => {
    fake.script({ ...OK, broken: true });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postMessages(gateway().url, secret, { model, ...HI, stream: true });
    const text = await res.text();
    expect(text).toContain("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\"");
    expect(text).not.toContain("message_stop");
    await expectReleased(account.id, 2_000_000_000n);
  });

  test("a native provider overloaded mid-stream: the client is told overloaded_error, as the provider said, and released", async () => {
    fake.script({ ...OK, overloaded: true });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const text = await (await postMessages(gateway().url, secret, { model: ANTHROPIC_NATIVE, ...HI, stream: true })).text();
    expect(text).toContain("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"");
    expect(text).not.toContain("message_stop");
    await expectReleased(account.id, 2_000_000_000n);
  });

  test.each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])("%s: a client that leaves mid-stream is released and the upstream request aborted", async (model) => {
    fake.script({ ...OK, stall: true });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postMessages(gateway().url, secret, { model, ...HI, stream: true });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: message_start");
    await reader.cancel();
    await expectReleased(account.id, 2_000_000_000n);
    await waitFor(() => fake.openStreams() === 0, "the upstream stream to be aborted");
  });

  test("405 in Anthropic's envelope for another method", async () => {
    const res = await fetch(`${gateway().url}/v1/messages`, { method: "GET" });
    expect([res.status, res.headers.get("allow"), await readJson(res)]).toEqual([405, "POST", envelope("invalid_request_error", "Method not allowed. Use POST.")]);
  });
});
