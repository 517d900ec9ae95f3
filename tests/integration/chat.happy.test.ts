import { afterAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { wireUsage } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { useGateway } from "../support/server.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());
const priceOf = (id: string) => FALLBACK_CATALOG.find((m) => m.id === id)!;

describeEachDialect("chat completions through the official openai SDK", (dialect) => {
  const gateway = useGateway(dialect, providerEnv(fake));
  const client = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${gateway().url}/v1`, maxRetries: 0 });

  test("a non-streaming completion has the spec's shape, the resolved model, and is charged exactly", async () => {
    fake.behave({ usage: { prompt_tokens: 1234, completion_tokens: 567 } });
    const { secret, account } = await fundedKey(gateway().store, "10");
    const completion = await client(secret).chat.completions.create({
      model: "gpt-5.5",
      messages: [{ role: "user", content: "Say hello" }],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("gpt-5.5");
    expect(typeof completion.id).toBe("string");
    expect(Number.isInteger(completion.created)).toBe(true);
    expect(completion.choices).toEqual([
      { index: 0, message: { role: "assistant", content: "Hello from the fake provider" }, finish_reason: "stop" },
    ] as never);
    const cost = requestCost(1234, 567, priceOf("gpt-5.5"));
    expect(cost).toBe(nanos(23_180_000n)); // 1234 × $5/M + 567 × $30/M = $0.02318
    expect(completion.usage as unknown).toEqual(wireUsage(1234, 567, cost));
    const after = (await gateway().store.getAccount(account.id))!;
    expect(after.balance).toBe(nanos(10_000_000_000n - cost));
    expect(after.reserved).toBe(nanos(0));
    expect(after.inflight).toBe(0);
    expect(await gateway().store.ledgerSum(account.id)).toBe(after.balance);
  });

  test("a stream relays chunks, ends with a final chunk carrying usage, then [DONE], and is charged", async () => {
    fake.behave({ chunks: 5, usage: { prompt_tokens: 40, completion_tokens: 25 } });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const stream = await client(secret).chat.completions.create({
      model: "deepseek-v3.2",
      messages: [{ role: "user", content: "Stream please" }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
    expect(text).toBe("Hello from the fake provider");
    for (const c of chunks) {
      expect(c.object).toBe("chat.completion.chunk");
      expect(c.model).toBe("deepseek-v3.2");
    }
    const last = chunks.at(-1)!;
    expect(last.choices[0]?.finish_reason).toBe("stop");
    expect(last.choices[0]?.delta).toEqual({});
    expect(last.usage as unknown).toEqual(wireUsage(40, 25, requestCost(40, 25, priceOf("deepseek-v3.2"))));
    for (const c of chunks.slice(0, -1)) expect(c.choices[0]?.finish_reason).toBeNull();

    const after = (await gateway().store.getAccount(account.id))!;
    expect(after.balance).toBe(nanos(1_000_000_000n - requestCost(40, 25, priceOf("deepseek-v3.2"))));
    expect(after.inflight).toBe(0);
  });

  test("the raw stream is text/event-stream, data: lines, blank-line separated, ending with data: [DONE]", async () => {
    fake.behave({ chunks: 2, usageInFinalChunk: true });
    const { secret } = await fundedKey(gateway().store, "1");
    const res = await fetch(`${gateway().url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "kimi-k2.5", messages: [{ role: "user", content: "hi" }], stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const raw = await res.text();
    const events = raw.split("\n\n").filter(Boolean);
    for (const e of events) expect(e).toStartWith("data: ");
    expect(events.at(-1)).toBe("data: [DONE]");
    const final = JSON.parse(events.at(-2)!.slice(6));
    expect(final.usage).toEqual(wireUsage(11, 7, requestCost(11, 7, priceOf("kimi-k2.5"))));
  });

  test("the provider receives its own model name, the output ceiling, usage for streams, and its own key", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "50");
    const sdk = client(secret);
    await sdk.chat.completions.create({ model: "gpt-5", messages: [{ role: "user", content: "x" }], max_tokens: 300, temperature: 0.5 });
    const gpt5 = fake.received.at(-1)!;
    expect(gpt5.body.model).toBe("gpt-5");
    expect(gpt5.body.max_completion_tokens).toBe(300);
    expect(gpt5.body.max_tokens).toBeUndefined();
    expect(gpt5.body.temperature).toBeUndefined(); // GPT-5 takes only default sampling
    expect(gpt5.authorization).toBe("Bearer sk-test-openai-secret");

    await sdk.chat.completions.create({ model: "deepseek-v3.2", messages: [{ role: "user", content: "x" }], max_tokens: 100_000, temperature: 0.2 });
    const deepseek = fake.received.at(-1)!;
    expect(deepseek.body.model).toBe("deepseek-chat");
    expect(deepseek.body.max_tokens).toBe(8192); // the model's limit caps the client's
    expect(deepseek.body.temperature).toBe(0.2);
    expect(deepseek.authorization).toBe("Bearer sk-test-deepseek-secret");

    const stream = await sdk.chat.completions.create({ model: "llama-4-scout", messages: [{ role: "user", content: "x" }], stream: true });
    for await (const _ of stream) {
      // drain
    }
    const llama = fake.received.at(-1)!;
    expect(llama.body.model).toBe("Llama-4-Scout-17B-16E-Instruct-FP8");
    expect(llama.body.max_tokens).toBe(16_384);
    expect(llama.body.stream_options).toEqual({ include_usage: true });
  });

  test("OpenAI's documented fields are forwarded, unknown ones are not", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "5");
    const res = await fetch(`${gateway().url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "x" }], n: 5, logit_bias: { "1": 100 }, seed: 7, made_up: 1 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-dropped-params")).toBeNull();
    const body = fake.received.at(-1)!.body;
    expect(body.n).toBe(5);
    expect(body.logit_bias).toEqual({ "1": 100 });
    expect(body.seed).toBe(7);
    expect(body.made_up).toBeUndefined();
  });

  test("many sequential requests leave balance = starting credits − the sum of exact costs = sum of the ledger", async () => {
    const { secret, account } = await fundedKey(gateway().store, "3");
    const sdk = client(secret);
    let spent = 0n;
    for (let i = 1; i <= 12; i++) {
      fake.behave({ usage: { prompt_tokens: 17 * i, completion_tokens: 3 * i + 1 } });
      await sdk.chat.completions.create({ model: "llama-3.3-70b-instruct", messages: [{ role: "user", content: `n${i}` }], max_tokens: 50 });
      spent += requestCost(17 * i, 3 * i + 1, priceOf("llama-3.3-70b-instruct"));
    }
    const after = (await gateway().store.getAccount(account.id))!;
    expect(after.balance).toBe(nanos(3_000_000_000n - spent));
    expect(await gateway().store.ledgerSum(account.id)).toBe(after.balance);
    const key = (await gateway().store.findKeyByHash((await import("../../src/core/keys/secret.ts")).hashKey(secret)))!.key;
    expect(key.totalRequests).toBe(12);
    expect(key.totalSpend).toBe(nanos(spent));
    expect(key.lastUsedAt).not.toBeNull();
    expect(await gateway().store.auditAccount(account.id)).toEqual({
      balance: after.balance,
      ledgerSum: after.balance,
      credited: nanos(3_000_000_000n),
      usageCost: nanos(spent),
      reserved: nanos(0),
      openReservations: 0,
    });
  });
});
