// The floor of a stream's cost per chunk for any relay that reads its chunks (to find the usage
// in the last one and say the public model in each): SSE parsing, the text fast path
// (relayedAsIs) and encoding, with no I/O at all, over streams of 20 and 200 chunks.
//   bun bench/chunk-floor.ts
// Compare with the bare relay's marginal CPU per chunk in `make bench`, which reads nothing.
import { sseData } from "../src/server/providers/sse.ts";
import { relayedAsIs } from "../src/core/chat/response.ts";
import { FALLBACK_CATALOG } from "../src/core/catalog.ts";
const model = FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!;
const base = { id: "chatcmpl-bench", created: 1_700_000_000, model: "bench-model" };
const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const mk = (n: number) => new TextEncoder().encode([chunk({ role: "assistant", content: "" }, null), chunk({ content: "word " }, null).repeat(n), chunk({}, "stop"), "data: [DONE]\n\n"].join(""));
const bufs = { 20: mk(20), 200: mk(200) };
const enc = new TextEncoder();
async function once(n: 20 | 200, fast: boolean) {
  const body = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(bufs[n]); c.close(); } });
  let out = 0;
  for await (const events of sseData(body, 1 << 20)) {
    let relayed = "";
    for (const data of events) {
      if (data === "[DONE]") break;
      const asIs = fast ? relayedAsIs(data, model) : null;
      if (asIs !== null) relayed += `data: ${asIs}\n\n`;
      else { const c = JSON.parse(data); c.model = model.id; relayed += `data: ${JSON.stringify(c)}\n\n`; }
    }
    out += enc.encode(relayed).length;
  }
  return out;
}
for (const fast of [false, true]) {
  const r: Record<number, number> = {};
  for (const n of [20, 200] as const) { for (let i = 0; i < 500; i++) await once(n, fast); const c0 = process.cpuUsage(); for (let i = 0; i < 3000; i++) await once(n, fast); const c = process.cpuUsage(c0); r[n] = (c.user + c.system) / 3000; }
  console.log(fast ? "fast" : "json", "per stream µs: 20 →", r[20]!.toFixed(1), " 200 →", r[200]!.toFixed(1), " per chunk", ((r[200]! - r[20]!) / 180).toFixed(3));
}
