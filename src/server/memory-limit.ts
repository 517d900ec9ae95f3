// MEMORY_SOFT_LIMIT_MB: the gateway collects its garbage in full when its resident memory
// passes the limit, as Go's GOMEMLIMIT does. JavaScriptCore schedules full collections by its
// own count of the heap, which Bun's stream buffers (a fresh 256 KB one for the first read of
// each provider body, mostly never touched) inflate far beyond what is resident: with
// thousands of streams ending and starting together, what finished streams left waited
// seconds for a collection.
import type { Logger } from "./log.ts";

/** What the limit reads and does; the process's own unless a test gives its own. */
export interface MemoryPorts {
  /** Resident memory, in bytes. */
  rss(): number;
  /** A full, synchronous collection. */
  collect(): void;
  now(): number;
  /** Calls `check` every `ms` until the returned function is called. */
  every(ms: number, check: () => void): () => void;
  log: Pick<Logger, "warn">;
}

/** How often resident memory is read: cheap (one read of /proc), and often enough to catch a wave of streams. */
const CHECK_EVERY_MS = 100;
/** The least time between two collections; a collection with thousands of streams open stops the process ~100 ms. */
const MIN_GAP_MS = 1_000;
/** The most, once collections stop helping (what is live is above the limit). */
const MAX_GAP_MS = 30_000;

/**
 * Decides, at each reading, whether to collect. A collection that frees little (under a
 * sixteenth of the limit) means what is above the limit is live: the gap before the next
 * doubles (up to MAX_GAP_MS, said in a warning once it gets there), so that a limit set below
 * what the load needs costs a collection every half minute at worst, not every second. One
 * that frees more, or memory back under the limit, sets the gap back.
 */
export class MemoryLimit {
  private gapMs = MIN_GAP_MS;
  private lastCollectedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly limitBytes: number, private readonly ports: MemoryPorts) {}

  check(): void {
    const { ports } = this;
    const before = ports.rss();
    if (before <= this.limitBytes) {
      this.gapMs = MIN_GAP_MS;
      return;
    }
    const now = ports.now();
    if (now - this.lastCollectedAt < this.gapMs) return;
    this.lastCollectedAt = now;
    ports.collect();
    const after = ports.rss();
    if (before - after >= this.limitBytes / 16) {
      this.gapMs = MIN_GAP_MS;
      return;
    }
    if (this.gapMs === MAX_GAP_MS) return;
    this.gapMs = Math.min(2 * this.gapMs, MAX_GAP_MS);
    // Said once per stretch, when collecting has slowed to its least: a wave of streams that
    // passes the limit for a few seconds is not worth a line.
    if (this.gapMs === MAX_GAP_MS) {
      ports.log.warn("memory stays above MEMORY_SOFT_LIMIT_MB though full collections free little (it is in use); collecting every 30 s", {
        residentMb: Math.round(after / 2 ** 20),
        limitMb: Math.round(this.limitBytes / 2 ** 20),
      });
    }
  }
}

/** This process's memory, collector, clock and timers. */
export const processMemory = (log: Logger): MemoryPorts => ({
  rss: () => process.memoryUsage.rss(),
  collect: () => Bun.gc(true),
  now: () => performance.now(),
  every: (ms, check) => {
    const timer = setInterval(check, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
  log,
});

/** Starts watching memory against `limitMb` (null: no limit); returns what stops it. */
export function startMemoryLimit(limitMb: number | null, ports: MemoryPorts): () => void {
  if (limitMb === null) return () => {};
  const limit = new MemoryLimit(limitMb * 2 ** 20, ports);
  return ports.every(CHECK_EVERY_MS, () => limit.check());
}
