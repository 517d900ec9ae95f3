// What a server's memory is made of, for `bun --preload bench/heap-probe.ts …`: every second it
// appends to $HEAP_PROBE_LOG (default /tmp/heap-probe.log) the resident memory (anonymous and
// file-backed), JavaScriptCore's heap size, the part of it that is memory outside the heap
// (ArrayBuffer contents and the like, often not resident) and the object count; every
// $HEAP_PROBE_FULL_GC_EVERY seconds (default 3; 0 never) it forces a full collection and
// appends the same after it, which tells live memory from garbage. A forced collection stops
// the process (~100 ms with 2,000 streams open), so runs with it measure memory, not speed.
//   GATEWAY_BUN_FLAGS="--preload ./bench/heap-probe.ts" bun bench/stream-hold.ts gateway 2000
import { heapStats } from "bun:jsc";
import { appendFileSync, readFileSync } from "node:fs";

const file = process.env.HEAP_PROBE_LOG ?? "/tmp/heap-probe.log";
const fullGcEvery = Number(process.env.HEAP_PROBE_FULL_GC_EVERY ?? 3);
const MB = 1024 * 1024;

function reading(): string {
  const status = readFileSync("/proc/self/status", "utf8");
  const kib = (field: string) => Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? 0);
  const heap = heapStats();
  return `rss=${kib("VmRSS") >> 10} anon=${kib("RssAnon") >> 10} file=${kib("RssFile") >> 10} heap=${Math.round(heap.heapSize / MB)} outside=${Math.round(heap.extraMemorySize / MB)} objects=${heap.objectCount}`;
}

let seconds = 0;
setInterval(() => {
  let line = `${new Date().toISOString()} ${reading()}`;
  if (fullGcEvery > 0 && ++seconds % fullGcEvery === 0) {
    const started = performance.now();
    Bun.gc(true);
    line += ` | after a full collection (${Math.round(performance.now() - started)} ms): ${reading()}`;
  }
  appendFileSync(file, `${line}\n`);
}, 1000).unref();
