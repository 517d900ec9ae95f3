// POST /v1/responses when it cannot answer: the chat error shape with chat's statuses and retry
// headers, what a stateless gateway cannot do said as a 400, and a failed or abandoned stream
// released like a chat stream.
import { afterAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { nanos } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { chatErrorShape } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { readJson } from "../support/http.ts";
import { client, NATIVE, postResponses, responsesEnv, TRANSLATED } from "../support/responses.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());
const OK = { text: "fine", usage: { input: 5, output: 1 } };

describeEachDialect("Responses API errors", (dialect) => {
  const gateway = useGateway(dialect, { ...responsesEnv(fake), MAX_CONCURRENT_REQUESTS: "1" });

  /** Nothing charged, nothing held, and the usage log says the request failed. */
  async function expectReleased(accountId: string, funded: bigint) {
    await waitFor(async () => (await gateway().store.getAccount(accountId))!.inflight === 0, "the release");
    const account = (await gateway().store.getAccount(accountId))!;
    expect([account.balance, account.reserved]).toEqual([nanos(funded), nanos(0)] as never);
    const [log] = await gateway().store.usageLogPage(accountId, null, 1);
    expect([log?.status, log?.cost]).toEqual(["error", nanos(0)] as never);
  }

  test("401 without a key or with an unknown one; the SDK raises its AuthenticationError", async () => {
    const res = await postResponses(gateway().url, null, { model: NATIVE, input: "hi" });
    expect(res.status).toBe(401);
    expect(await readJson(res)).toEqual(chatErrorShape(401, "authentication_error"));
    const refused = await client(gateway().url, "gw-unknown").responses.create({ model: NATIVE, input: "hi" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  test("402's hint names max_output_tokens, as the Responses API calls the ceiling", async () => {
    const { secret } = await fundedKey(gateway().store, "0.01");
    const res = await postResponses(gateway().url, secret, { model: NATIVE, input: "hi", max_output_tokens: 100_000 });
    expect(res.status).toBe(402);
    const { error } = (await readJson(res)) as { error: { message: string } };
    expect(error.message).toMatch(/The largest max_output_tokens that fits is \d+\./);
    expect(error.message).not.toContain("max_tokens");
  });

  test("402 when the balance does not cover the reservation, saying not to retry", async () => {
    const { secret } = await fundedKey(gateway().store, "0");
    const res = await postResponses(gateway().url, secret, { model: NATIVE, input: "hi" });
    expect(res.status).toBe(402);
    expect(await readJson(res)).toEqual(chatErrorShape(402, "insufficient_credits"));
    expect(res.headers.get("x-should-retry")).toBe("false");
  });

  /** A stream the provider stalls after its first events, read as far as its first bytes. */
  async function stalledStream(model: string) {
    fake.script({ ...OK, stall: true });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postResponses(gateway().url, secret, { model, input: "hi", stream: true });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    /** The client leaves: released, and the upstream request aborted. */
    const leave = async () => {
      await reader.cancel();
      await expectReleased(account.id, 2_000_000_000n);
      await waitFor(() => fake.openStreams() === 0, "the upstream stream to be aborted");
    };
    return { secret, first, leave };
  }

  test("429 while the account's one concurrent request streams; the stream left mid-way is released", async () => {
    const held = await stalledStream(TRANSLATED);
    expect(held.first).toStartWith("event: response.created\n");
    const busy = await postResponses(gateway().url, held.secret, { model: TRANSLATED, input: "hi" });
    expect(busy.status).toBe(429);
    expect(await readJson(busy)).toEqual(chatErrorShape(429, "rate_limit_error"));
    expect([busy.headers.get("retry-after"), busy.headers.get("x-should-retry")]).toEqual(["1", "true"]);
    await held.leave();
  });

  test.each([NATIVE, TRANSLATED])("%s: a client that leaves mid-stream is released and the upstream request aborted", async (model) => {
    const stream = await stalledStream(model);
    expect(fake.openStreams()).toBeGreaterThan(0);
    await stream.leave();
  });

  test.each([NATIVE, TRANSLATED])("%s: a stream the provider breaks ends with response.failed, nothing charged", async (model) => {
    fake.script({ ...OK, broken: true });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postResponses(gateway().url, secret, { model, input: "hi", stream: true });
    const events = (await res.text()).split("\n\n").filter(Boolean).map((e) => JSON.parse(e.split("\ndata: ")[1]!));
    // Natively the provider's first two events came before the bad one; translated, its first two chunks.
    const before = model === NATIVE ? [] : ["response.output_item.added", "response.content_part.added", "response.output_text.delta"];
    expect(events.map((e) => e.type)).toEqual(["response.created", "response.in_progress", ...before, "response.failed"]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.at(-1).response).toMatchObject({ status: "failed", model, error: { code: "upstream_error", message: "Upstream provider request failed" } });
    await expectReleased(account.id, 2_000_000_000n);
  });

  test.each([NATIVE, TRANSLATED])("%s: a provider failure → 502 saying to retry, nothing charged", async (model) => {
    fake.script({ ...OK, status: 500 });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postResponses(gateway().url, secret, { model, input: "hi" });
    expect(res.status).toBe(502);
    expect(await readJson(res)).toEqual(chatErrorShape(502, "provider_error"));
    expect(res.headers.get("x-should-retry")).toBe("true");
    await expectReleased(account.id, 2_000_000_000n);
  });

  test.each([
    // Unknown response and item ids are in responses.stored.test.ts, with OpenAI's param and code.
    [{ background: true }, "background: true is not supported"],
    [{ conversation: "conv_1" }, "conversation is not supported"],
    [{ tools: [{ type: "custom", format: { type: "text" } }] }, 'tools[0] must be {type: "custom", name'],
    [{ max_output_tokens: 0 }, "max_output_tokens must be an integer from 1 to 200000"],
    [{ input: [] }, "input must be a string"],
    [{ input: [{ type: "function_call", name: "f" }] }, "input[0] must be a message"],
    [{ text: { format: { type: "json_schema" } } }, "text must be"],
  ])("400 for %j, saying why, nothing forwarded", async (fields, message) => {
    const { secret } = await fundedKey(gateway().store, "2");
    const sent = fake.received.length;
    const res = await postResponses(gateway().url, secret, { model: TRANSLATED, input: "hi", ...fields });
    expect(res.status).toBe(400);
    const body = await readJson(res);
    expect(body).toEqual(chatErrorShape(400, "invalid_request_error"));
    expect(body.error.message).toContain(message);
    expect(fake.received.length).toBe(sent);
  });

  test("GET /v1/responses → 405 in the chat shape", async () => {
    const res = await fetch(`${gateway().url}/v1/responses`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});
