// DeepSeek's Anthropic API replayed from its documented transcripts (tests/fixtures/anthropic/):
// the client gets the provider's Message and events as sent, with the public model and the
// charged usage, and the account is charged exactly what the usage says (cache reads at the
// cached-input price).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { formatUsd, nanos, parseUsd } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFixtureProvider, type Transcript } from "../support/fixture-provider.ts";
import { anthropic, postMessages } from "../support/messages.ts";
import { useGateway } from "../support/server.ts";

const FIXTURES = new URL("../fixtures/anthropic/deepseek/", import.meta.url);
const provider = startFixtureProvider();
afterAll(() => provider.stop());
const env = {
  DEEPSEEK_BASE_URL: provider.baseUrl,
  DEEPSEEK_API_KEY: "sk-test",
  DEEPSEEK_ANTHROPIC_BASE_URL: provider.baseUrl.replace(/\/v1$/, ""),
};

const message = async () => (await Bun.file(new URL("message.json", FIXTURES)).json()) as { status: number; body: Record<string, unknown> };
/** A stream exactly as written, `event:` lines included. */
const stream = async (name: string): Promise<Transcript> => ({
  status: 200,
  contentType: "text/event-stream",
  body: (await Bun.file(new URL(name, FIXTURES)).text()).replace(/^# source:.*\n/, ""),
});

// deepseek-v3.2: $0.28 input, $0.028 cached input, $0.42 output per 1M: 64 × 280 + 1,536 × 28 + 90 × 420 nano-USD.
const COST = 98_728n;
const USAGE = { input_tokens: 64, cache_creation_input_tokens: 0, cache_read_input_tokens: 1536, output_tokens: 90, cost_usd: formatUsd(nanos(COST), 9) };

describeEachDialect("DeepSeek's Anthropic API, replayed", (dialect) => {
  const gateway = useGateway(dialect, env);
  beforeAll(async () => {
    await gateway().store.updateModel("deepseek-v3.2", { cachedInputPerMTok: parseUsd("0.028")! });
  });

  async function expectCharged(accountId: string, cost: bigint) {
    const account = (await gateway().store.getAccount(accountId))!;
    expect([account.balance, account.reserved]).toEqual([5_000_000_000n - cost, 0n] as never);
    // The usage log keeps the cache reads and what they saved: 1,536 × ($0.28 − $0.028) per million.
    const [log] = await gateway().store.usageLogPage(accountId, null, 1);
    expect([log!.cachedTokens, log!.saved]).toEqual([1536, 387_072n] as never);
  }

  test("a Message: the provider's own, with the public model and the charged usage", async () => {
    const transcript = await message();
    provider.replay({ status: 200, contentType: "application/json", body: JSON.stringify(transcript.body) });
    const { secret, account } = await fundedKey(gateway().store, "5");
    const answer = await anthropic(gateway().url, secret).messages.create({ model: "deepseek-v3.2", max_tokens: 100, messages: [{ role: "user", content: "Hello" }] });
    expect(answer as unknown).toEqual({ ...transcript.body, model: "deepseek-v3.2", usage: USAGE });
    expect(provider.received.at(-1)).toEqual({ model: "deepseek-chat", max_tokens: 100, messages: [{ role: "user", content: "Hello" }] });
    await expectCharged(account.id, COST);
  });

  test("a stream: the provider's events in order, the public model in message_start, the charged usage in message_delta", async () => {
    const transcript = await stream("stream.sse");
    provider.replay(transcript);
    const { secret, account } = await fundedKey(gateway().store, "5");
    const res = await postMessages(gateway().url, secret, { model: "deepseek-v3.2", max_tokens: 100, messages: [{ role: "user", content: "Hello" }], stream: true });
    const frames = (await res.text()).split("\n\n").filter(Boolean).map((frame) => frame.split("\n"));
    const sent = transcript.body.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    const expected = sent.map((event) => {
      if (event.type === "message_start") return { ...event, message: { ...(event.message as object), model: "deepseek-v3.2" } };
      if (event.type === "message_delta") return { ...event, usage: USAGE };
      return event;
    });
    expect(frames.map(([name, data]) => [name, JSON.parse(data!.slice("data: ".length))])).toEqual(expected.map((event) => [`event: ${event.type}`, event]));
    await expectCharged(account.id, COST);
    const final = await anthropic(gateway().url, secret).messages.stream({ model: "deepseek-v3.2", max_tokens: 100, messages: [{ role: "user", content: "Hello" }] }).finalMessage();
    expect(final.content).toEqual([{ type: "text", text: "Hello! How can I help you today?" } as never]);
    await expectCharged(account.id, 2n * COST);
  });

  test("a streamed tool call: the SDK assembles the tool_use block from its input_json_delta pieces", async () => {
    provider.replay(await stream("tool-use.sse"));
    const { secret } = await fundedKey(gateway().store, "5");
    const final = await anthropic(gateway().url, secret).messages.stream({ model: "deepseek-v3.2", max_tokens: 200, messages: [{ role: "user", content: "Weather?" }] }).finalMessage();
    expect(final.stop_reason).toBe("tool_use");
    expect(final.content.at(-1)).toEqual({ type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: { location: "San Francisco, CA", unit: "fahrenheit" } } as never);
  });
});
