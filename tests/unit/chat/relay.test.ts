import { describe, expect, test } from "bun:test";
import { BillingSession } from "../../../src/core/chat/billing.ts";
import { ProviderTimeout } from "../../../src/core/chat/failures.ts";
import type { StreamRead } from "../../../src/core/chat/provider.ts";
import { relayStream } from "../../../src/core/chat/relay.ts";
import { AppError } from "../../../src/core/errors.ts";
import { nanos } from "../../../src/core/money.ts";
import { sseReads, WholeRead } from "../../../src/server/providers/sse.ts";
import { readdirSync, readFileSync } from "node:fs";
import { billingPorts, FakeObserver, FakeSink, held, model } from "./fakes.ts";

const RESERVED = 1_200_000n;
const head = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1_700_000_000 };

// What the provider sends (its own model name) and what the client gets (the public ID).
const upstream = (choice: object, extra: object = {}) => JSON.stringify({ ...head, model: "provider-name-2025", choices: [choice], ...extra });
const client = (modelId: string, choice: object) => ({ ...head, model: modelId, choices: [choice] });
const text = (content: string, index = 0) => ({ index, delta: { content }, finish_reason: null });
const stop = (index = 0) => ({ index, delta: {}, finish_reason: "stop" });
const rawUsage = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
const usageOnly = (prompt: number, completion: number) => JSON.stringify({ ...head, model: "provider-name-2025", choices: [], usage: rawUsage(prompt, completion) });
const wire = (prompt: number, completion: number, costUsd: string) => ({
  ...rawUsage(prompt, completion),
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
  cost_usd: costUsd,
});
const chatError = (status: number, type: string, message: string) => ({ error: { message, type, code: String(status) } });
const PROVIDER_FAILED = chatError(502, "provider_error", "Upstream provider request failed");

type Read = string[] | Error;
async function* script(reads: Read[]): AsyncIterable<StreamRead> {
  for (const read of reads) {
    if (read instanceof Error) throw read;
    yield { events: read };
  }
}

/** A relay of `reads` for `modelId` over a real BillingSession on the fake store. */
function relayOf(reads: Read[] | AsyncIterable<StreamRead>, modelId = "gpt-4.1", chargeWhenGone = false, usageChunk = false) {
  const timeline: string[] = [];
  const ports = billingPorts(timeline);
  const observer = new FakeObserver();
  const billing = new BillingSession(ports, held(modelId, RESERVED), observer);
  const sink = new FakeSink(timeline);
  const events = Array.isArray(reads) ? script(reads) : reads;
  const run = () => relayStream({ events, model: model(modelId), billing, log: ports.log, observer, chargeWhenGone, usageChunk }, sink);
  return { ...ports, observer, sink, timeline, run };
}

/** What was written to the store, in short. */
const writes = (store: ReturnType<typeof billingPorts>["store"]) => ({
  settled: store.settled.map((s) => ({ promptTokens: s.promptTokens, completionTokens: s.completionTokens, cost: s.cost })),
  released: store.released.map((r) => r.reason),
});

describe("relayStream, a stream that finishes", () => {
  test("relays content in order, holds the final chunk for the usage and charges it before [DONE]", async () => {
    const r = relayOf([[upstream(text("Hel")), upstream(text("lo"))], [upstream(stop())], [usageOnly(12, 2)], ["[DONE]"]]);
    await r.run();
    // gpt-4.1: 12 × 2 000 + 2 × 8 000 nano-USD.
    expect(r.sink.events()).toEqual([
      client("gpt-4.1", text("Hel")),
      client("gpt-4.1", text("lo")),
      { ...client("gpt-4.1", stop()), usage: wire(12, 2, "0.000040000") },
      "[DONE]",
    ]);
    expect(writes(r.store)).toEqual({ settled: [{ promptTokens: 12, completionTokens: 2, cost: nanos(40_000n) }], released: [] });
    expect(r.timeline.slice(-3)).toEqual(["emit event", "store.settle", "emit [DONE]"]);
    expect(r.observer.calls).toEqual([["opened", "gpt-4.1"], ["closed", { promptTokens: 12, completionTokens: 2, cost: nanos(40_000n), cachedTokens: 0, saved: nanos(0) }]]);
    expect(r.leases.held.size).toBe(0);
  });

  test.each([
    // DeepSeek: the usage rides on the finish chunk. $0.28 / $0.42: 12 × 280 + 2 × 420.
    ["inside the finish chunk (DeepSeek)", "deepseek-v3.2", upstream(stop(), { usage: rawUsage(12, 2) }), "0.000004200", 4_200n],
    // Moonshot: inside the finishing choice. $0.95 / $4: 12 × 950 + 2 × 4 000.
    ["inside the finishing choice (Moonshot)", "kimi-k2.6", upstream({ ...stop(), usage: rawUsage(12, 2) }), "0.000019400", 19_400n],
  ] as const)("charges usage sent %s", async (_title, modelId, finish, costUsd, cost) => {
    const r = relayOf([[upstream(text("Hi")), finish], ["[DONE]"]], modelId);
    await r.run();
    expect(r.sink.events()).toEqual([client(modelId, text("Hi")), { ...client(modelId, stop()), usage: wire(12, 2, costUsd) }, "[DONE]"]);
    expect(writes(r.store)).toEqual({ settled: [{ promptTokens: 12, completionTokens: 2, cost: nanos(cost) }], released: [] });
  });

  test("a stream that ends without [DONE] but after the final chunk and usage is finished", async () => {
    const r = relayOf([[upstream(text("Hi"))], [upstream(stop())], [usageOnly(12, 2)]]);
    await r.run();
    expect(r.sink.events()).toEqual([client("gpt-4.1", text("Hi")), { ...client("gpt-4.1", stop()), usage: wire(12, 2, "0.000040000") }, "[DONE]"]);
    expect(writes(r.store).settled).toHaveLength(1);
  });

  test("[DONE] without usage charges the whole reservation, and the client is shown no usage, never zeros", async () => {
    const r = relayOf([[upstream(text("Hi")), upstream(stop())], ["[DONE]"]]);
    await r.run();
    expect(r.sink.events()).toEqual([client("gpt-4.1", text("Hi")), client("gpt-4.1", stop()), "[DONE]"]);
    expect(writes(r.store)).toEqual({ settled: [{ promptTokens: 0, completionTokens: 0, cost: nanos(RESERVED) }], released: [] });
  });

  test("with several choices every final chunk is relayed, the last one with the usage", async () => {
    const r = relayOf([
      [upstream(text("A", 0)), upstream(text("B", 1))],
      [upstream(stop(0))],
      [upstream(text("C", 1))],
      [upstream(stop(1))],
      [usageOnly(12, 4)],
      ["[DONE]"],
    ]);
    await r.run();
    expect(r.sink.events()).toEqual([
      client("gpt-4.1", text("A", 0)),
      client("gpt-4.1", text("B", 1)),
      client("gpt-4.1", text("C", 1)),
      client("gpt-4.1", stop(0)),
      { ...client("gpt-4.1", stop(1)), usage: wire(12, 4, "0.000056000") },
      "[DONE]",
    ]);
  });
});

describe("relayStream over reads of whole events, passed on as bytes", () => {
  const fixtures = new URL("../../fixtures/providers/", import.meta.url).pathname;
  const eventsOf = (provider: string) =>
    readFileSync(`${fixtures}${provider}/stream.sse`, "utf8").split("\n\n").filter((e) => e.trim() !== "").map((e) => `${e}\n\n`);
  /** The fixture's events in the reads `cut` makes of them, as the SSE reader hands them over (with their bytes). */
  const readsOf = (provider: string, cut: (events: string[]) => string[] = (events) => events) => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const read of cut(eventsOf(provider))) controller.enqueue(new TextEncoder().encode(read));
        controller.close();
      },
    });
    return sseReads(body, 1_000_000);
  };
  async function* withoutBytes(reads: AsyncIterable<StreamRead>): AsyncIterable<StreamRead> {
    for await (const read of reads) yield { events: [...read.events] };
  }
  const cuts: [string, (events: string[]) => string[]][] = [
    ["one read per event", (events) => events],
    ["the first event alone, then the rest in one read", ([first, ...rest]) => [first as string, rest.join("")]],
    ["reads of 7 bytes", (events) => events.join("").match(/[^]{1,7}/g) ?? []],
    // As a provider sends it, without the fixture's citation line before its first event.
    ["one read", (events) => [events.join("").replace(/^#.*\n/gm, "")]],
  ];
  const cases = readdirSync(fixtures).filter((name) => !name.includes(".")).flatMap((provider) => cuts.map(([how, cut]) => [provider, how, cut] as const));

  test.each(cases)("sends %s's documented stream in %s as parsing every event would, and charges the same", async (provider, _, cut) => {
    const fast = relayOf(readsOf(provider, cut));
    const parsed = relayOf(withoutBytes(readsOf(provider, cut)));
    await fast.run();
    await parsed.run();
    expect(fast.sink.events()).toEqual(parsed.sink.events());
    expect(writes(fast.store)).toEqual(writes(parsed.store));
    expect(writes(fast.store).settled).toHaveLength(1);
    expect(parsed.sink.bytesWrites).toBe(0);
  });

  test.each([...cuts.slice(0, 2), cuts[3]!])("passes content chunks after the first as the bytes of their reads (%s)", async (_, cut) => {
    // OpenAI's documented stream: the role chunk, a content chunk, the final one and the usage chunk.
    const r = relayOf(readsOf("openai", cut));
    await r.run();
    expect(r.sink.bytesWrites).toBe(1);
  });
});

describe("relayStream, a stream that fails", () => {
  test.each([
    ["content only", [[upstream(text("Hi"))]]],
    ["a final chunk but no usage", [[upstream(text("Hi"))], [upstream(stop())]]],
    ["usage but no final chunk", [[upstream(text("Hi"))], [usageOnly(12, 2)]]],
  ] as const)("ending after %s releases the reservation and ends with an error event, no [DONE]", async (_title, reads) => {
    const r = relayOf(reads.map((read) => [...read]));
    await r.run();
    expect(r.sink.events()).toEqual([client("gpt-4.1", text("Hi")), PROVIDER_FAILED]);
    expect(writes(r.store)).toEqual({ settled: [], released: ["provider stream failed"] });
    expect(r.observer.calls).toEqual([["opened", "gpt-4.1"], ["providerFailed"], ["closed", null]]);
    expect(r.log.entries).toEqual([
      { level: "warn", message: "provider stream failed", fields: { model: "gpt-4.1", error: "the provider's stream ended before it finished" } },
    ]);
    expect(r.leases.held.size).toBe(0);
  });

  test.each([
    ["a ProviderTimeout", new ProviderTimeout(120_000), "provider stream timed out", chatError(502, "provider_error", "Upstream provider timed out after 120 s")],
    ["another provider_error", new AppError("provider_error", "Upstream provider stream was cut"), "provider stream failed", chatError(502, "provider_error", "Upstream provider stream was cut")],
    ["an error of another kind", new AppError("payload_too_large", "event too large"), "provider stream failed", PROVIDER_FAILED],
    ["a plain Error", new Error("socket hang up"), "provider stream failed", PROVIDER_FAILED],
  ] as const)("%s thrown mid-stream releases the reservation and sends the error event", async (_title, error, reason, event) => {
    const r = relayOf([[upstream(text("Hi"))], error]);
    await r.run();
    expect(r.sink.events()).toEqual([client("gpt-4.1", text("Hi")), event]);
    expect(writes(r.store)).toEqual({ settled: [], released: [reason] });
  });

  test("a malformed event sends the good events of its read first, in one write, then the error", async () => {
    const r = relayOf([[upstream(text("A"))], [upstream(text("B")), upstream(text("C")), "{not json", upstream(text("D"))]]);
    await r.run();
    expect(r.sink.events()).toEqual([client("gpt-4.1", text("A")), client("gpt-4.1", text("B")), client("gpt-4.1", text("C")), PROVIDER_FAILED]);
    expect(r.sink.writes).toHaveLength(3); // A; B and C together; the error
    expect(writes(r.store)).toEqual({ settled: [], released: ["provider stream failed"] });
  });

  test("a malformed event in the first read still sends the first event at once", async () => {
    const r = relayOf([[upstream(text("A")), upstream(text("B")), "{not json"]]);
    await r.run();
    expect(r.sink.writes.map((w) => w.split("\n\n").length - 1)).toEqual([1, 1, 1]);
    expect(r.sink.events()).toEqual([client("gpt-4.1", text("A")), client("gpt-4.1", text("B")), PROVIDER_FAILED]);
  });

  test("a client that has gone is not released by the relay, nor sent the error", async () => {
    let sink: FakeSink | undefined;
    async function* leaving(): AsyncIterable<StreamRead> {
      yield { events: [upstream(text("Hi"))] };
      sink!.gone = true;
      throw new ProviderTimeout(120_000);
    }
    const r = relayOf(leaving());
    sink = r.sink;
    await r.run();
    expect(r.sink.events()).toEqual([client("gpt-4.1", text("Hi"))]);
    expect(writes(r.store)).toEqual({ settled: [], released: [] });
    expect(r.observer.calls).toEqual([["opened", "gpt-4.1"]]);
    expect([...r.leases.held]).toEqual(["res-1"]); // clientLeft releases it
  });

  describe("under STREAM_DISCONNECT_POLICY=charge", () => {
    /** The client leaves after the first read; the provider's stream goes on with `rest`. */
    function leavingAfterFirst(rest: Read[]) {
      let sink: FakeSink | undefined;
      async function* reads(): AsyncIterable<StreamRead> {
        yield { events: [upstream(text("Hi"))] };
        sink!.gone = true;
        yield* script(rest);
      }
      const r = relayOf(reads(), "gpt-4.1", true);
      sink = r.sink;
      return r;
    }

    test("a client that leaves is charged the usage the provider reports at the end", async () => {
      const r = leavingAfterFirst([[upstream(text(" there")), upstream(stop())], [usageOnly(12, 2)], ["[DONE]"]]);
      await r.run();
      expect(writes(r.store)).toEqual({ settled: [{ promptTokens: 12, completionTokens: 2, cost: nanos(40_000n) }], released: [] });
      expect(r.leases.held.size).toBe(0);
    });

    test("a stream that reports no usage is released as by default", async () => {
      const r = leavingAfterFirst([[upstream(stop())], ["[DONE]"]]);
      await r.run();
      expect(writes(r.store)).toEqual({ settled: [], released: ["client disconnected before the stream finished"] });
    });

    test("a stream that fails after the client left is released", async () => {
      const r = leavingAfterFirst([new ProviderTimeout(120_000)]);
      await r.run();
      expect(writes(r.store)).toEqual({ settled: [], released: ["provider stream timed out"] });
    });
  });

  test("a charge that cannot be written ends with the 503 error event and no [DONE]", async () => {
    const r = relayOf([[upstream(text("Hi")), upstream(stop())], [usageOnly(12, 2)], ["[DONE]"]]);
    const down = new Error("database is down");
    r.store.settleWith = () => Promise.reject(down);
    await r.run();
    expect(r.sink.events()).toEqual([
      client("gpt-4.1", text("Hi")),
      { ...client("gpt-4.1", stop()), usage: wire(12, 2, "0.000040000") },
      chatError(503, "service_unavailable_error", "The service is temporarily unavailable; this request will not be charged"),
    ]);
    expect(r.store.released).toEqual([]); // left to the sweeper
    expect(r.log.entries).toEqual([{ level: "error", message: "charging a finished stream failed", fields: { model: "gpt-4.1", error: down } }]);
    expect(r.leases.held.size).toBe(0);
  });
});

describe("relayStream for a client that asked for OpenAI's usage chunk (stream_options.include_usage)", () => {
  test("the final chunk carries no usage, and a chunk with no choices and the usage follows it before [DONE]", async () => {
    const r = relayOf([[upstream(text("Hi"))], [upstream(stop())], [usageOnly(12, 2)], ["[DONE]"]], "gpt-4.1", false, true);
    await r.run();
    expect(r.sink.events()).toEqual([
      client("gpt-4.1", text("Hi")),
      client("gpt-4.1", stop()),
      { id: head.id, object: head.object, created: head.created, model: "gpt-4.1", choices: [], usage: wire(12, 2, "0.000040000") },
      "[DONE]",
    ]);
    expect(writes(r.store).settled).toEqual([{ promptTokens: 12, completionTokens: 2, cost: nanos(40_000n) }]);
  });

  test("a provider that reported no usage: no usage chunk, the reservation charged", async () => {
    const r = relayOf([[upstream(text("Hi")), upstream(stop())], ["[DONE]"]], "gpt-4.1", false, true);
    await r.run();
    expect(r.sink.events()).toEqual([client("gpt-4.1", text("Hi")), client("gpt-4.1", stop()), "[DONE]"]);
    expect(writes(r.store).settled).toEqual([{ promptTokens: 0, completionTokens: 0, cost: nanos(RESERVED) }]);
  });

  test("usage on the final chunk itself (xAI, DeepSeek) is taken off it and sent in the usage chunk, with the system_fingerprint", async () => {
    const fp = { system_fingerprint: "fp_1" };
    const r = relayOf([[upstream(text("Hi"), fp)], [upstream(stop(), { ...fp, usage: rawUsage(12, 2) })], ["[DONE]"]], "gpt-4.1", false, true);
    await r.run();
    expect(r.sink.events()).toEqual([
      { ...client("gpt-4.1", text("Hi")), ...fp },
      { ...client("gpt-4.1", stop()), ...fp },
      { ...head, model: "gpt-4.1", ...fp, choices: [], usage: wire(12, 2, "0.000040000") },
      "[DONE]",
    ]);
    expect(writes(r.store).settled).toEqual([{ promptTokens: 12, completionTokens: 2, cost: nanos(40_000n) }]);
  });

  test("usage in the final choice (Moonshot), the whole stream in one read: the choice loses it, the usage chunk has it", async () => {
    const r = relayOf([[upstream(text("Hi")), upstream({ ...stop(), usage: rawUsage(12, 2) }), "[DONE]"]], "gpt-4.1", false, true);
    await r.run();
    expect(r.sink.events()).toEqual([
      client("gpt-4.1", text("Hi")),
      client("gpt-4.1", stop()),
      { ...head, model: "gpt-4.1", choices: [], usage: wire(12, 2, "0.000040000") },
      "[DONE]",
    ]);
  });

  test("with several choices the usage chunk follows the last final chunk, once", async () => {
    const r = relayOf([[upstream(text("A", 0)), upstream(text("B", 1))], [upstream(stop(0))], [upstream(stop(1))], [usageOnly(12, 4)], ["[DONE]"]], "gpt-4.1", false, true);
    await r.run();
    expect(r.sink.events()).toEqual([
      client("gpt-4.1", text("A", 0)),
      client("gpt-4.1", text("B", 1)),
      client("gpt-4.1", stop(0)),
      client("gpt-4.1", stop(1)),
      { ...head, model: "gpt-4.1", choices: [], usage: wire(12, 4, "0.000056000") },
      "[DONE]",
    ]);
  });

  test("without it (the spec's events) the same stream has the usage merged into the final chunk and no usage chunk", async () => {
    const r = relayOf([[upstream(text("Hi"))], [upstream(stop())], [usageOnly(12, 2)], ["[DONE]"]], "gpt-4.1", false, false);
    await r.run();
    expect(r.sink.events()).toEqual([client("gpt-4.1", text("Hi")), { ...client("gpt-4.1", stop()), usage: wire(12, 2, "0.000040000") }, "[DONE]"]);
  });
});

describe("relayStream to a door that rewrites every chunk", () => {
  // A door speaks its own API's events: it gets the usage merged whatever the client's stream_options.
  for (const usageChunk of [false, true]) {
    test(`it gets the chunks parsed, a read's at a time (the final one with the usage and charge), and [DONE] and errors as events (usageChunk ${usageChunk})`, async () => {
      const timeline: string[] = [];
      const ports = billingPorts(timeline);
      const observer = new FakeObserver();
      const billing = new BillingSession(ports, held("gpt-4.1", RESERVED), observer);
      const received: string[] = [];
      const door = {
        gone: false,
        flush: async () => {},
        chunks: (chunks: readonly Record<string, unknown>[]) => received.push(`chunks ${JSON.stringify(chunks)}`),
        emit: (payload: string) => received.push(`emit ${payload}`),
        emitBytes: () => received.push("bytes"),
      };
      const reads = async function* (): AsyncIterable<StreamRead> {
        // Whole events with their bytes: a chat client would get these passed on as they came.
        for (const events of [[upstream(text("Hel"))], [upstream(text("lo")), upstream(text("!"))], [upstream(stop()), usageOnly(12, 2)], ["[DONE]"]]) {
          yield new WholeRead(new TextEncoder().encode(events.map((e) => `data: ${e}\n\n`).join("")));
        }
      };
      await relayStream({ events: reads(), model: model("gpt-4.1"), billing, log: ports.log, observer, chargeWhenGone: false, usageChunk }, door);
      expect(received).toEqual([
        `chunks ${JSON.stringify([client("gpt-4.1", text("Hel"))])}`,
        `chunks ${JSON.stringify([client("gpt-4.1", text("lo")), client("gpt-4.1", text("!"))])}`,
        `chunks ${JSON.stringify([{ ...client("gpt-4.1", stop()), usage: wire(12, 2, "0.000040000") }])}`,
        "emit data: [DONE]\n\n",
      ]);
    });
  }
});
