import { afterAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import type { Store } from "../../src/core/ports.ts";
import { fundedKey } from "../support/accounts.ts";
import { chatErrorShape, hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

async function expectReleased(store: Store, accountId: string, balance: bigint) {
  const account = (await store.getAccount(accountId))!;
  expect([account.balance, account.reserved, account.inflight]).toEqual([nanos(balance), nanos(0), 0] as never);
  expect(await store.ledgerSum(accountId)).toBe(account.balance);
  const [log] = await store.usageLogPage(accountId, null, 1);
  expect(log?.status).toBe("error");
  expect(log?.cost).toBe(nanos(0));
}

const noSecrets = (text: string) => expect(text).not.toMatch(/sk-test|127\.0\.0\.1:\d+\/v1/);

describeEachDialect("chat: upstream failures release the reservation", (dialect) => {
  // A short provider timeout keeps the timeout cases fast; META points at a closed port.
  const gateway = useGateway(dialect, { ...providerEnv(fake), PROVIDER_TIMEOUT_MS: "300", META_BASE_URL: "http://127.0.0.1:1/v1" });

  test.each([500, 503, 429, 401])("upstream %i → 502 provider_error, nothing charged", async (status) => {
    fake.behave({ status, errorMessage: "Incorrect API key provided: sk-test-openai-secret" });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(chatErrorShape(502, "provider_error"));
    noSecrets(text);
    await expectReleased(gateway().store, account.id, 2_000_000_000n);
  });

  test.each([400, 422])("upstream %i → 400 invalid_request_error with the provider's message", async (status) => {
    fake.behave({ status, errorMessage: "This model's maximum context length is 128000 tokens" });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(400);
    const body = await readJson(res);
    expect(body).toEqual(chatErrorShape(400, "invalid_request_error"));
    expect(body.error.message).toBe("This model's maximum context length is 128000 tokens");
    await expectReleased(gateway().store, account.id, 2_000_000_000n);
  });

  test("a provider that refuses connections → 502", async () => {
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postChat(gateway().url, secret, hello("llama-4-scout"));
    expect(res.status).toBe(502);
    noSecrets(await res.text());
    await expectReleased(gateway().store, account.id, 2_000_000_000n);
  });

  test("a provider slower than the timeout → 502 saying it timed out", async () => {
    fake.behave({ delayMs: 3_000 });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(502);
    expect((await readJson(res)).error.message).toContain("timed out");
    await expectReleased(gateway().store, account.id, 2_000_000_000n);
  });

  test("a 200 with a body that is not JSON → 502", async () => {
    fake.behave({ malformed: true });
    const { secret, account } = await fundedKey(gateway().store, "2");
    expect((await postChat(gateway().url, secret, hello())).status).toBe(502);
    await expectReleased(gateway().store, account.id, 2_000_000_000n);
  });

  test("a completion without usage is charged the whole reservation", async () => {
    fake.behave({ usage: null });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const body = hello("gpt-4.1-nano", { max_tokens: 20 });
    expect((await postChat(gateway().url, secret, body)).status).toBe(200);
    const bytes = Buffer.byteLength(JSON.stringify(body));
    const ceiling = requestCost(bytes + 4 + 3, 20, FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!);
    const after = (await gateway().store.getAccount(account.id))!;
    expect(after.balance).toBe(nanos(2_000_000_000n - ceiling));
    expect(after.reserved).toBe(nanos(0));
  });

  test("a stream that breaks midway ends with an error chunk, and nothing is charged", async () => {
    fake.behave({ chunks: 4, breakAfter: 2 });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postChat(gateway().url, secret, hello("gpt-4.1-nano", { stream: true }));
    expect(res.status).toBe(200);
    const events = (await res.text()).split("\n\n").filter(Boolean);
    const last = JSON.parse(events.at(-1)!.slice("data: ".length));
    expect(last).toEqual(chatErrorShape(502, "provider_error"));
    expect(events).not.toContain("data: [DONE]");
    await expectReleased(gateway().store, account.id, 2_000_000_000n);
  });

  test("an event that is not JSON ends the stream with an error chunk after the chunks that came with it; nothing is charged", async () => {
    fake.behave({ chunks: 3, malformed: true, content: "one two three" });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postChat(gateway().url, secret, hello("gpt-4.1-nano", { stream: true }));
    expect(res.status).toBe(200);
    const events = (await res.text()).split("\n\n").filter(Boolean).map((e) => JSON.parse(e.slice("data: ".length)));
    expect(events.at(-1)).toEqual(chatErrorShape(502, "provider_error"));
    expect(events.slice(0, -1).map((e) => e.choices[0].delta.content).join("")).toBe("one two three");
    await expectReleased(gateway().store, account.id, 2_000_000_000n);
  });

  test("a stream that stalls past the timeout ends with a timeout error chunk; the SDK raises it", async () => {
    fake.behave({ chunks: 4, stallAfter: 1 });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${gateway().url}/v1`, maxRetries: 0 });
    const stream = await sdk.chat.completions.create({ ...hello(), stream: true } as never);
    const received: string[] = [];
    const failure = await (async () => {
      for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) received.push(chunk.choices[0]?.delta?.content ?? "");
    })().catch((e) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(String(failure.message)).toContain("timed out");
    expect(received.join("")).not.toBe("");
    await expectReleased(gateway().store, account.id, 2_000_000_000n);
    await waitFor(() => fake.openStreams() === 0, "the stalled upstream stream to be aborted");
  });

  test("a client that disconnects mid-stream releases the reservation and the upstream request is aborted", async () => {
    fake.behave({ chunks: 4, stallAfter: 2 });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postChat(gateway().url, secret, hello("gpt-4.1-nano", { stream: true }));
    const reader = res.body!.getReader();
    await reader.read();
    expect(fake.openStreams()).toBeGreaterThan(0);
    await reader.cancel();
    await waitFor(async () => (await gateway().store.getAccount(account.id))!.inflight === 0, "the release");
    await expectReleased(gateway().store, account.id, 2_000_000_000n);
    await waitFor(() => fake.openStreams() === 0, "the upstream stream to be aborted");
  });
});
