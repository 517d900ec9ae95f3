// Each provider's usage dialect, replayed from its documented transcripts
// (tests/fixtures/providers/), against every way a request can end: the client sees the usage
// normalised to OpenAI's meaning, the account is charged exactly what the provider bills (or
// the reservation is released), and the usage log says which.
import { afterAll, expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { estimatePromptTokens } from "../../src/core/chat/price.ts";
import { nanos, requestCost, type Nanos } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { jsonTranscript, sse, sseTranscript, startFixtureProvider } from "../support/fixture-provider.ts";
import { useGateway } from "../support/server.ts";

const provider = startFixtureProvider();
afterAll(() => provider.stop());
const env = Object.fromEntries(
  ["OPENAI", "DEEPSEEK", "MOONSHOT", "XAI", "META"].flatMap((p) => [[`${p}_BASE_URL`, provider.baseUrl], [`${p}_API_KEY`, "sk-test"]]),
);

interface Expected {
  model: string;
  /** What the client is shown, normalised. */
  usage: { prompt: number; completion: number; cached: number; reasoning: number };
  /** The charge, worked out by hand from the catalog's prices, cached-input prices included. */
  cost: bigint;
}

// gpt-4.1: $2 / $8 per 1M, cached $0.50: 93 × 2,000 + 1,024 × 500 + 46 × 8,000 nano-USD.
// deepseek-v3.2: $0.28 / $0.42, cached $0.028: 64 × 280 + 1,536 × 28 + 90 × 420.
// kimi-k2.5: $0.60 / $2.50, cached $0.10 (Moonshot's 1/6): 19 × 600 + 1,000 × 100 + 13 × 2,500.
// grok-4-20-reasoning: $1.25 / $2.50, cached $0.20 (xAI's 4/25); 310 reasoning tokens billed as
// output: 26 × 1,250 + 6 × 200 + 319 × 2,500.
// llama-4-scout: $0.10 / $0.35 (Meta documents no cache discount): 21 × 100 + 8 × 350.
const PROVIDERS: Record<string, Expected> = {
  openai: { model: "gpt-4.1", usage: { prompt: 1117, completion: 46, cached: 1024, reasoning: 0 }, cost: 1_066_000n },
  deepseek: { model: "deepseek-v3.2", usage: { prompt: 1600, completion: 90, cached: 1536, reasoning: 0 }, cost: 98_728n },
  moonshot: { model: "kimi-k2.5", usage: { prompt: 1019, completion: 13, cached: 1000, reasoning: 0 }, cost: 143_900n },
  xai: { model: "grok-4-20-reasoning", usage: { prompt: 32, completion: 319, cached: 6, reasoning: 310 }, cost: 831_200n },
  meta: { model: "llama-4-scout", usage: { prompt: 21, completion: 8, cached: 0, reasoning: 0 }, cost: 4_900n },
};

const body = (model: string, stream: boolean, extra: object = {}) => ({ model, messages: [{ role: "user", content: "Hello" }], max_tokens: 100, stream, ...extra });
/** OpenAI's usage chunk asked for, as LangChain and code written to OpenAI's docs ask. */
const INCLUDE_USAGE = { stream_options: { include_usage: true } };
/** The reservation of `body(model, …)`: what a request is charged when its provider reports no usage. */
const reservationOf = (model: string, stream: boolean, extra: object = {}): Nanos => {
  const m = FALLBACK_CATALOG.find((c) => c.id === model)!;
  const bytes = Buffer.byteLength(JSON.stringify(body(model, stream, extra)));
  return requestCost(estimatePromptTokens(bytes, 1), 100, { ...m, cachedInputPerMTok: null });
};

/** The provider's stream changed only where an ending differs from a normal stop. */
type Ending = (events: string[]) => string[];
const withFinish = (reason: string): Ending => (events) => events.map((e) => e.replace(/"finish_reason":"stop"/, `"finish_reason":"${reason}"`));
const isUsageEvent = (e: string) => e.includes('"usage":{');
/** An event with its usage taken out, wherever the provider put it; none left of a usage-only chunk. */
function withoutUsage(event: string): string[] {
  if (event === "[DONE]") return [event];
  const chunk = JSON.parse(event) as { usage?: unknown; choices: { usage?: unknown }[] };
  if (chunk.choices.length === 0) return [];
  delete chunk.usage;
  for (const choice of chunk.choices) delete choice.usage;
  return [JSON.stringify(chunk)];
}
const ERROR_EVENT = JSON.stringify({ error: { message: "The server had an error while processing your request.", type: "server_error" } });
const ENDINGS: Record<string, { change: Ending; charged: "usage" | "reservation" | "nothing" }> = {
  stop: { change: (e) => e, charged: "usage" },
  length: { change: withFinish("length"), charged: "usage" },
  "tool calls": { change: withFinish("tool_calls"), charged: "usage" },
  "content filter": { change: withFinish("content_filter"), charged: "usage" },
  // The provider gives up after its first event, with an error event, then ends as usual.
  "error event mid-stream": { change: (e) => [e[0]!, ERROR_EVENT, "[DONE]"], charged: "nothing" },
  // The connection ends before the usage (and [DONE]) arrive.
  "cut before usage": { change: (e) => e.slice(0, e.findIndex(isUsageEvent)), charged: "nothing" },
  // A provider that ignores stream_options.include_usage: the gateway charges the reservation, and shows no usage.
  "stream without usage": { change: (e) => e.flatMap(withoutUsage), charged: "reservation" },
};

describeEachDialect("providers as they really are", (dialect) => {
  const gateway = useGateway(dialect, env);

  async function charged(model: string, stream: boolean, extra: object = {}) {
    const { secret, account } = await fundedKey(gateway().store, "10");
    const res = await postChat(gateway().url, secret, body(model, stream, extra));
    const text = await res.text();
    const after = (await gateway().store.getAccount(account.id))!;
    const [log] = await gateway().store.usageLogPage(account.id, null, 1);
    expect(after.reserved).toBe(nanos(0));
    return { res, text, charge: 10_000_000_000n - after.balance, log: log! };
  }

  const usd = (n: bigint) => `${n / 1_000_000_000n}.${String(n % 1_000_000_000n).padStart(9, "0")}`;
  const shownUsage = (e: Expected) => ({
    prompt_tokens: e.usage.prompt,
    completion_tokens: e.usage.completion,
    total_tokens: e.usage.prompt + e.usage.completion,
    cached_tokens: e.usage.cached,
    reasoning_tokens: e.usage.reasoning,
    cost_usd: usd(e.cost),
  });
  const flatten = (u: Record<string, any>) => ({
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens,
    cached_tokens: u.prompt_tokens_details?.cached_tokens,
    reasoning_tokens: u.completion_tokens_details?.reasoning_tokens,
    cost_usd: u.cost_usd,
  });

  for (const [name, expected] of Object.entries(PROVIDERS)) {
    test(`${name}, not streamed: the usage shown, charged and logged is the provider's, normalised`, async () => {
      const answer = await jsonTranscript(name);
      provider.replay({ status: answer.status, contentType: "application/json", body: JSON.stringify(answer.body) });
      const { res, text, charge, log } = await charged(expected.model, false);
      expect(res.status).toBe(200);
      expect(flatten(JSON.parse(text).usage)).toEqual(shownUsage(expected));
      expect(charge).toBe(expected.cost);
      expect([log.status, log.promptTokens, log.completionTokens, log.cost]).toEqual(["success", expected.usage.prompt, expected.usage.completion, nanos(expected.cost)]);
    });

    for (const [ending, { change, charged: outcome }] of Object.entries(ENDINGS)) {
      test(`${name}, streamed, ${ending}`, async () => {
        provider.replay(sse(change(await sseTranscript(name))));
        const { res, text, charge, log } = await charged(expected.model, true);
        expect(res.status).toBe(200);
        const events = text.split("\n\n").filter(Boolean).map((e) => e.slice("data: ".length));
        if (outcome === "nothing") {
          expect(charge).toBe(0n);
          expect(events.at(-1)).toContain('"type":"provider_error"');
          expect([log.status, log.cost]).toEqual(["error", nanos(0)]);
          return;
        }
        expect(events.at(-1)).toBe("[DONE]");
        const final = JSON.parse(events.at(-2)!);
        if (outcome === "reservation") {
          const reservation = reservationOf(expected.model, true);
          expect(charge).toBe(reservation);
          // The client is shown no usage, never zeros: the provider reported none.
          expect(final.usage).toBeUndefined();
          expect([log.status, log.cost]).toEqual(["success", reservation]);
          return;
        }
        expect(flatten(final.usage)).toEqual(shownUsage(expected));
        expect(final.choices[0].finish_reason).toBe(ending === "stop" ? "stop" : ending === "length" ? "length" : ending === "tool calls" ? "tool_calls" : "content_filter");
        expect(charge).toBe(expected.cost);
        expect([log.status, log.promptTokens, log.completionTokens, log.cost]).toEqual(["success", expected.usage.prompt, expected.usage.completion, nanos(expected.cost)]);
      });
    }

    test(`${name}, streamed with stream_options.include_usage: the final chunk carries none, OpenAI's usage chunk follows it once`, async () => {
      provider.replay(sse(await sseTranscript(name)));
      const { res, text, charge, log } = await charged(expected.model, true, INCLUDE_USAGE);
      expect(res.status).toBe(200);
      const events = text.split("\n\n").filter(Boolean).map((e) => e.slice("data: ".length));
      expect(events.at(-1)).toBe("[DONE]");
      const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
      // Wherever the provider put it (its own chunk, the final chunk, the final choice), one chunk carries it: the last.
      expect(chunks.filter((c) => "usage" in c || c.choices.some((choice: object) => "usage" in choice))).toHaveLength(1);
      const final = chunks.at(-2);
      expect(final.choices[0].finish_reason).toBe("stop");
      const usageChunk = chunks.at(-1);
      expect(usageChunk).toMatchObject({ id: final.id, object: "chat.completion.chunk", created: final.created, model: expected.model, choices: [] });
      expect(flatten(usageChunk.usage)).toEqual(shownUsage(expected));
      expect(charge).toBe(expected.cost);
      expect([log.status, log.cost]).toEqual(["success", nanos(expected.cost)]);
    });

    test(`${name}, streamed with stream_options.include_usage, without usage: no usage chunk and no zeros, the reservation charged`, async () => {
      provider.replay(sse((await sseTranscript(name)).flatMap(withoutUsage)));
      const { res, text, charge, log } = await charged(expected.model, true, INCLUDE_USAGE);
      expect(res.status).toBe(200);
      const events = text.split("\n\n").filter(Boolean).map((e) => e.slice("data: ".length));
      expect(events.at(-1)).toBe("[DONE]");
      expect(events.some((e) => e.includes('"usage"'))).toBe(false);
      expect(JSON.parse(events.at(-2)!).choices[0].finish_reason).toBe("stop");
      const reservation = reservationOf(expected.model, true, INCLUDE_USAGE);
      expect(charge).toBe(reservation);
      expect([log.status, log.cost]).toEqual(["success", reservation]);
    });
  }
});
