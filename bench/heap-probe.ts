// What a server's memory is made of, for `bun --preload bench/heap-probe.ts …`: every second it
// appends to $HEAP_PROBE_LOG (default /tmp/heap-probe.log) the resident memory (anonymous and
// file-backed), JavaScriptCore's heap size, the part of it that is memory outside the heap
// (ArrayBuffer contents and the like, often not resident) and the object count; every
// $HEAP_PROBE_FULL_GC_EVERY seconds (default 3; 0 never) it forces a full collection and
// appends the same after it, which tells live memory from garbage. A forced collection stops
// the process (~100 ms with 2,000 streams open), so runs with it measure memory, not speed.
// With HEAP_PROBE_TYPES=n it also appends the n most numerous kinds of live object after each
// forced collection, to compare two servers' objects per stream, and the n kinds the collection
// freed most of (garbage that had outlived the young collections). With HEAP_PROBE_BINS=1 it
// also appends mimalloc's size classes holding more than 1 MB before and after the collection
// (native memory, what Bun allocates outside the JavaScript heap), as block size × blocks.
//   GATEWAY_BUN_FLAGS="--preload ./bench/heap-probe.ts" bun bench/stream-hold.ts gateway 2000
import { heapStats } from "bun:jsc";
import { appendFileSync, readFileSync } from "node:fs";

const file = process.env.HEAP_PROBE_LOG ?? "/tmp/heap-probe.log";
const fullGcEvery = Number(process.env.HEAP_PROBE_FULL_GC_EVERY ?? 3);
const typesShown = Number(process.env.HEAP_PROBE_TYPES ?? 0);
const binsShown = process.env.HEAP_PROBE_BINS === "1";
const MB = 1024 * 1024;

function reading(): string {
  const status = readFileSync("/proc/self/status", "utf8");
  const kib = (field: string) => Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? 0);
  const heap = heapStats();
  const mi = (heap as unknown as { mimalloc?: Record<string, { current: number }> }).mimalloc;
  const mb = (bytes: number | undefined) => Math.round((bytes ?? 0) / MB);
  return `rss=${kib("VmRSS") >> 10} anon=${kib("RssAnon") >> 10} file=${kib("RssFile") >> 10} heap=${mb(heap.heapSize)} capacity=${mb(heap.heapCapacity)} outside=${mb(heap.extraMemorySize)} objects=${heap.objectCount} malloc=${mb((mi?.malloc_normal?.current ?? 0) + (mi?.malloc_huge?.current ?? 0))} mallocCommitted=${mb(mi?.committed?.current)}`;
}

function mostNumerous(n: number): string {
  const counts = Object.entries(heapStats().objectTypeCounts).sort(([, a], [, b]) => b - a);
  return counts.slice(0, n).map(([type, count]) => `${type}=${count}`).join(" ");
}

function largestBins(): string {
  const mi = heapStats() as unknown as { mimalloc?: { malloc_bins?: { current: number; block_size: number }[] } };
  return (mi.mimalloc?.malloc_bins ?? [])
    .filter((bin) => bin.current * bin.block_size > MB)
    .map((bin) => `${bin.block_size}×${bin.current}`)
    .join(" ");
}

let seconds = 0;
setInterval(() => {
  let line = `${new Date().toISOString()} ${reading()}`;
  if (fullGcEvery > 0 && ++seconds % fullGcEvery === 0) {
    const binsBefore = binsShown ? largestBins() : "";
    const typesBefore = typesShown > 0 ? { ...heapStats().objectTypeCounts } : {};
    const started = performance.now();
    Bun.gc(true);
    line += ` | after a full collection (${Math.round(performance.now() - started)} ms): ${reading()}`;
    if (typesShown > 0) {
      line += `\n  ${mostNumerous(typesShown)}`;
      const after = heapStats().objectTypeCounts;
      const freed = Object.entries(typesBefore).map(([type, count]) => [type, count - (after[type] ?? 0)] as const).sort(([, a], [, b]) => b - a);
      line += `\n  freed ${freed.slice(0, typesShown).map(([type, count]) => `${type}=${count}`).join(" ")}`;
    }
    if (binsShown) line += `\n  bins before ${binsBefore}\n  bins after  ${largestBins()}`;
  }
  appendFileSync(file, `${line}\n`);
}, 1000).unref();
