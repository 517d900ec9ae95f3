// The floor of the slow-stream cell for a gateway that keeps a durable ledger: bench/chunk-relay.ts
// (every chunk read in JavaScript and enqueued unchanged) plus, per stream, the gateway's own
// store calls and nothing else: the key found and the reservation held before forwarding, the
// charge settled (a fixed cost: no usage is parsed) when the provider's stream ends. No HTTP
// framework, parsing, pricing, logging, metrics or timers. `bun bench/cell.ts sqlite slow-ledger`
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
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const settle = () =>
      store.settle({
        reservationId: held.reservationId, accountId: held.account.id, keyId: held.key.id, model: "gpt-4.1-nano",
        requestedModel: "gpt-4.1-nano", promptTokens: 24, completionTokens: 100, cost: COST, latencyMs: Date.now() - held.now, now: Date.now(),
      });
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        await settle();
        controller.close();
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, headers: { "content-type": "text/event-stream" } });
  },
});
console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.port}` }));
