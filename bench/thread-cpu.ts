// CPU time of a process by thread name: where a CPU profile cannot see (a profile samples the
// JavaScript thread only; the garbage collector's helpers, the allocator's scavenger and fetch's
// HTTP client thread run beside it). `bench/cell.ts` prints the gateway's split after each run;
// by hand, over a window of a running process:
//   bun bench/thread-cpu.ts <pid> [seconds=10]
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** Each thread's user + system CPU time in µs, summed by thread name (a pool's threads share one). */
export function threadMicros(pid: number | string): Map<string, number> {
  const byName = new Map<string, number>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
    } catch {
      continue; // the thread ended between the listing and the read
    }
    // `pid (name) state …`: the name may hold spaces and parentheses, so it ends at the last ')'.
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    const ticks = Number(fields[11]) + Number(fields[12]);
    byName.set(name, (byName.get(name) ?? 0) + (ticks * 1_000_000) / TICKS_PER_SECOND);
  }
  return byName;
}

/** What each thread spent between two readings of `threadMicros`, largest first, in µs. */
export function threadsSpent(before: Map<string, number>, after: Map<string, number>): [string, number][] {
  const spent = [...after].map(([name, micros]): [string, number] => [name, micros - (before.get(name) ?? 0)]);
  return spent.filter(([, micros]) => micros > 0).sort((a, b) => b[1] - a[1]);
}

if (import.meta.main) {
  const [pid, seconds = "10"] = process.argv.slice(2);
  if (!pid) {
    console.error("usage: bun bench/thread-cpu.ts <pid> [seconds]");
    process.exit(2);
  }
  const before = threadMicros(pid);
  await Bun.sleep(Number(seconds) * 1000);
  for (const [name, micros] of threadsSpent(before, threadMicros(pid))) console.log(`${(micros / 1e6).toFixed(2).padStart(7)} s  ${name}`);
}
