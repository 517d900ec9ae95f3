// The floor of a gateway that keeps a durable ledger (make bench's c=64 chat cells and its
// slow-stream cell): a stream's chunks read in JavaScript and enqueued unchanged as
// bench/chunk-relay.ts does (an answer that is not a stream read in one piece), plus, per
// request, the gateway's own store calls and nothing else: the key found and the reservation
// held before forwarding, the charge settled (a fixed cost: no usage is parsed) when the
// provider's answer ends. No HTTP framework, parsing, pricing, logging, metrics or timers. `bun bench/cell.ts sqlite slow-ledger`
// runs the cell against it. Takes the gateway's DATABASE_URL, OPENAI_BASE_URL and
// MAX_CONCURRENT_REQUESTS (and ignores `serve --port 0`), to stand in for it in bench/slow-streams.ts.
import { hashKey } from "../src/core/keys/secret.ts";
import type { Nanos } from "../src/core/money.ts";
import { openDatabase } from "../src/db/database.ts";
import { createStore } from "../src/db/store/index.ts";

const { OPENAI_BASE_URL: upstream, DATABASE_URL: databaseUrl, MAX_CONCURRENT_REQUESTS: maxInFlight = "10" } = process.env;
if (!upstream || !databaseUrl) throw new Error("OPENAI_BASE_URL and DATABASE_URL are required");
const store = createStore(openDatabase(databaseUrl));
const policy = { maxConcurrentRequests: Number(maxInFlight), dashboardUrl: "http://bench.invalid" };
const [HOLD, COST] = [50_000n as Nanos, 12_000n as Nanos];

/** The reservation for this key, held durably; null when the key is unknown or refused. */
async function hold(secret: string) {
  const now = Date.now();
  const admission = { model: "gpt-4.1-nano", requestedModel: "gpt-4.1-nano", amount: HOLD, policy, leaseMs: 300_000, now };
  const { found, reservationId } = await store.admitByKey(hashKey(secret), admission);
  if (!found) return null;
  if (reservationId) return { ...found, reservationId, now };
  const outcome = await store.reserve({ ...admission, account: found.account, key: found.key });
  return outcome.ok ? { ...found, reservationId: outcome.reservationId, now } : null;
}

/** The charge: a fixed cost (no usage is parsed). */
const settleOnce = (held: NonNullable<Awaited<ReturnType<typeof hold>>>) =>
  store.settle({
    reservationId: held.reservationId, accountId: held.account.id, keyId: held.key.id, model: "gpt-4.1-nano",
    requestedModel: "gpt-4.1-nano", promptTokens: 24, completionTokens: 100, cost: COST, latencyMs: Date.now() - held.now, now: Date.now(),
  });

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 0,
  async fetch(request) {
    const held = await hold(request.headers.get("authorization")?.slice("Bearer ".length) ?? "");
    if (!held) return new Response("refused", { status: 402 });
    const response = await fetch(`${upstream}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer upstream-key" },
      body: await request.arrayBuffer(),
    });
    // An answer that is not a stream is read in one piece, as the gateway reads it, then settled.
    if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
      const answer = await response.arrayBuffer();
      await settleOnce(held);
      return new Response(answer, { status: response.status, headers: { "content-type": "application/json" } });
    }
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    // The reservation ends once: settled when the provider's answer is read, released when the
    // client leaves first (wrk closing its connections at the end of a round), as the gateway's is.
    let ended = false;
    const settle = () => {
      ended = true;
      return settleOnce(held);
    };
    const release = () => {
      if (ended) return;
      ended = true;
      return store.release({ reservationId: held.reservationId, reason: "client left", latencyMs: Date.now() - held.now, now: Date.now() });
    };
    if (request.signal.aborted) void release();
    else request.signal.addEventListener("abort", () => void release(), { once: true });
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        await settle();
        controller.close();
      },
      cancel: async (reason) => {
        await reader.cancel(reason);
        await release();
      },
    });
    return new Response(body, { status: response.status, headers: { "content-type": "text/event-stream" } });
  },
});
console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.port}` }));
// Exits on SIGTERM (as the gateway does), so that a `--cpu-prof` run writes its profile.
process.on("SIGTERM", () => process.exit(0));
