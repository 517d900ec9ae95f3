// A stream's cost per chunk in the relay's own reading, with no I/O at all, over streams of 20
// and 200 chunks: SSE reading (sseReads), then either parsing each chunk's JSON (`json`) or the
// fast path that passes whole reads on as bytes (relayedReadAsIs, `bytes`).
//   bun bench/chunk-floor.ts
// Compare with the bare relay's marginal CPU per chunk in `make bench`, which reads nothing.
import { sseReads } from "../src/server/providers/sse.ts";
import { relayedReadAsIs } from "../src/core/chat/relayed-as-is.ts";
import { FALLBACK_CATALOG } from "../src/core/catalog.ts";
const model = FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!;
const base = { id: "chatcmpl-bench", created: 1_700_000_000, model: "bench-model" };
const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
// One read per event, as a provider writes them a token apart.
const mk = (n: number) =>
  [chunk({ role: "assistant", content: "" }, null), ...Array<string>(n).fill(chunk({ content: "word " }, null)), chunk({}, "stop"), "data: [DONE]\n\n"].map((e) => new TextEncoder().encode(e));
const bufs = { 20: mk(20), 200: mk(200) };
const enc = new TextEncoder();
async function once(n: 20 | 200, fast: boolean) {
  const body = new ReadableStream<Uint8Array>({ start(c) { for (const read of bufs[n]) c.enqueue(read); c.close(); } });
  let out = 0;
  for await (const read of sseReads(body, 1 << 20)) {
    const asIs = fast && read.bytes ? relayedReadAsIs(read.bytes, model) : null;
    if (asIs && asIs.end === read.bytes?.length) {
      out += asIs.bytes.length;
      continue;
    }
    let relayed = "";
    for (const data of read.events) {
      if (data === "[DONE]") break;
      const c = JSON.parse(data);
      c.model = model.id;
      relayed += `data: ${JSON.stringify(c)}\n\n`;
    }
    out += enc.encode(relayed).length;
  }
  return out;
}
for (const fast of [false, true]) {
  const r: Record<number, number> = {};
  for (const n of [20, 200] as const) { for (let i = 0; i < 500; i++) await once(n, fast); const c0 = process.cpuUsage(); for (let i = 0; i < 3000; i++) await once(n, fast); const c = process.cpuUsage(c0); r[n] = (c.user + c.system) / 3000; }
  console.log(fast ? "bytes" : "json", "per stream µs: 20 →", r[20]!.toFixed(1), " 200 →", r[200]!.toFixed(1), " per chunk", ((r[200]! - r[20]!) / 180).toFixed(3));
}
