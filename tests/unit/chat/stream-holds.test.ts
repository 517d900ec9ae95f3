// What an open stream keeps alive. A stream lives for as long as the model writes (minutes,
// with thousands at once), so whatever its closures reach stays in memory that long: the
// admitted request, which holds the client's prompt twice (parsed, and as sent upstream), must
// not be among it once the provider has it.
import { expect, test } from "bun:test";
import { admitChat, type ChatPorts } from "../../../src/core/chat/pipeline.ts";
import type { ChatProvider, StreamRead } from "../../../src/core/chat/provider.ts";
import { parseChatRequest } from "../../../src/core/chat/request.ts";
import { streamed } from "../../../src/server/chat/front-door.ts";
import { openAiCompatible } from "../../../src/server/providers/openai-compatible.ts";
import { PROVIDERS } from "../../../src/core/catalog.ts";
import { silentLogger } from "../../../src/server/log.ts";
import { Metrics } from "../../../src/server/observability/metrics.ts";
import { RequestRecord } from "../../../src/server/observability/request-record.ts";
import { billingPorts, model, STARTED_AT } from "./fakes.ts";

const firstChunk = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "gpt-4.1-2025-04-14",
  choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
});

/** How many streams each test opens at once. */
const STREAMS = 16;

/**
 * How many of `refs` full collections leave alive. JavaScriptCore scans the native stack
 * conservatively, so a stale word left by an earlier frame can keep one unreachable object alive
 * through every collection (in a full CI run, where the stack and heap are the whole suite's, a
 * test of one object failed that way; alone it never did). What the code truly holds, it holds
 * for every stream: so the tests open many and allow a stray one or two.
 */
async function survivors(refs: WeakRef<object>[], rounds = 5): Promise<number> {
  let alive = refs.length;
  for (let round = 0; round < rounds && alive > 0; round++) {
    Bun.gc(true);
    alive = refs.filter((ref) => ref.deref() !== undefined).length;
    await Bun.sleep(1);
  }
  return alive;
}

test("an open stream does not hold its admitted request, prompt and all", async () => {
  let finish = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  // The provider sends its first chunk, then nothing until the test lets it end.
  const provider: ChatProvider = {
    complete: () => Promise.reject(new Error("not used")),
    stream: async () =>
      (async function* (): AsyncGenerator<StreamRead> {
        yield { events: [firstChunk] };
        await finished;
      })(),
  };
  const ports: ChatPorts = { ...billingPorts(), provider, findModel: async (id) => model(id), findAlias: async () => undefined };
  const record = new RequestRecord("req-1", "POST", { metrics: new Metrics(), log: silentLogger });

  // Admitted and streamed in a function of their own, so that no frame of the test holds them.
  const open = async () => {
    const admitted = await admitChat(ports, {
      keyHash: "hash-of-key-1",
      clientIp: () => "203.0.113.7",
      request: parseChatRequest({ model: "gpt-4.1", stream: true, messages: [{ role: "user", content: "a long prompt ".repeat(1000) }] }),
      bodyBytes: 14_100,
      policy: { maxConcurrentRequests: STREAMS, dashboardUrl: "https://dashboard.example" },
      leaseMs: 60_000,
      startedAt: STARTED_AT,
      observer: record,
      signal: new AbortController().signal,
      chargeWhenGone: false,
    });
    const response = await streamed(ports, admitted, { upstream: new AbortController(), detach() {} }, record);
    return { reader: (response.body as ReadableStream<Uint8Array>).getReader(), admitted: new WeakRef(admitted) };
  };
  const streams = await Promise.all(Array.from({ length: STREAMS }, open));
  for (const { reader } of streams) {
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toStartWith('data: {"id":"chatcmpl-1"');
  }

  expect(await survivors(streams.map((stream) => stream.admitted))).toBeLessThanOrEqual(2);

  finish();
  await Promise.all(streams.map(({ reader }) => reader.cancel()));
});

test("an open stream's exchange with the provider does not hold the body it sent, prompt and all", async () => {
  let finish = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  // A provider on loopback that sends its first chunk, then nothing until the test lets it end.
  const upstream = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response(
        new ReadableStream({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode(`data: ${firstChunk}\n\n`));
            await finished;
            controller.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  });
  try {
    const settings = { baseUrl: `http://127.0.0.1:${upstream.port}/v1`, anthropicBaseUrl: null, apiKeys: ["sk-test"] };
    const adapter = openAiCompatible(Object.fromEntries(PROVIDERS.map((p) => [p, settings])) as never, { timeoutMs: 30_000, now: Date.now, observe() {} });
    // Sent in a function of its own, so that no frame of the test holds the body.
    const open = async () => {
      const body = { model: "gpt-4.1-2025-04-14", stream: true, messages: [{ role: "user", content: "a long prompt ".repeat(1000) }] };
      const reads = await adapter.stream({ model: model("gpt-4.1"), body, signal: new AbortController().signal });
      return { reads: reads[Symbol.asyncIterator](), body: new WeakRef(body) };
    };
    const streams = await Promise.all(Array.from({ length: STREAMS }, open));
    for (const { reads } of streams) expect((await reads.next()).value.events).toEqual([firstChunk]);

    expect(await survivors(streams.map((stream) => stream.body))).toBeLessThanOrEqual(2);

    finish();
    await Promise.all(streams.map(({ reads }) => reads.return?.(undefined)));
  } finally {
    upstream.stop(true);
  }
});
