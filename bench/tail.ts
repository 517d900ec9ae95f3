// The tail of `make bench`: latency added over direct-to-upstream at 1 and 64 in flight, at the
// median, the 90th and the 99th percentile, as the public gateway benchmarks report it, for the
// gateway, the bare relay (bench/baseline-proxy.ts) and the floor program (bench/ledger-relay.ts),
// and the targets set against them. Nothing asserts the targets: a missed one is a finding,
// explained with its measured floor in bench/PROFILE.md.
import type { PairedLatency } from "./paired.ts";
import { median, type Sample } from "./processes.ts";

const SERVERS = ["baseline", "gateway", "floor"] as const;
type TailServer = (typeof SERVERS)[number];
export const TAIL_CONNECTIONS = [1, 64] as const;
const TAIL_MODES = ["json", "stream"] as const;

/** One server in one cell: what it adds over direct, in ms, and its CPU per request in µs. */
interface Added { p50: number; p90: number; p99: number; cpu: number }
/** Keyed `${dialect}|${mode}|${connections}|${server}`. */
export type Tails = Map<string, Added>;
/** The floor program and the gateway paired request by request at 1 in flight (bench/paired.ts), keyed `${dialect}|${mode}`. */
export type Paired = Map<string, [PairedLatency, PairedLatency]>;

/** Reads one dialect's samples (keyed `${mode}|${connections}|${target}`, direct included) into `tails`. */
export function collectTails(tails: Tails, dialect: string, samples: Map<string, Sample[]>): void {
  const med = (key: string, field: keyof Sample) => median((samples.get(key) ?? []).map((s) => s[field]));
  for (const mode of TAIL_MODES) {
    for (const connections of TAIL_CONNECTIONS) {
      const cell = `${mode}|${connections}`;
      for (const server of SERVERS) {
        const added = (field: "p50" | "p90" | "p99") => med(`${cell}|${server}`, field) - med(`${cell}|direct`, field);
        tails.set(`${dialect}|${cell}|${server}`, { p50: added("p50"), p90: added("p90"), p99: added("p99"), cpu: med(`${cell}|${server}`, "cpuPerRequestUs") });
      }
    }
  }
}

const fmt = (n: number | undefined, digits: number) => (n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : "n/a");

/** The table: one row per dialect, mode, in-flight count and server. */
export function tailTable(tails: Tails): string[] {
  const rows = ["| db | mode | in flight | server | added p50 ms | added p90 ms | added p99 ms | CPU µs/req |", "|---|---|---|---|---|---|---|---|"];
  for (const [key, a] of tails) {
    const [dialect, mode, connections, server] = key.split("|");
    rows.push(`| ${dialect} | ${mode} | ${connections} | ${server} | ${fmt(a.p50, 3)} | ${fmt(a.p90, 3)} | ${fmt(a.p99, 3)} | ${fmt(a.cpu, 1)} |`);
  }
  return rows;
}

const verdict = (value: number, limit: number) => (Number.isFinite(value) && Number.isFinite(limit) && value <= limit ? "met" : "MISSED");

/**
 * A line per target: what was measured, the limit it is held to and whether it is met; a missed
 * one adds what the floor program (the store's durable writes and nothing else) measured in the
 * same cell, and whether that floor is itself past the target.
 */
export function tailTargets(tails: Tails, dialects: string[], paired: Paired = new Map()): string[] {
  const lines: string[] = [];
  const of = (dialect: string, mode: string, connections: number, server: TailServer) =>
    tails.get(`${dialect}|${mode}|${connections}|${server}`) ?? { p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, cpu: Number.NaN };
  const line = (what: string, value: number, limit: number, against: string, floorNote: string | null, digits = 3) => {
    const missed = verdict(value, limit) === "MISSED";
    return `- ${what}: ${fmt(value, digits)} (target ≤ ${fmt(limit, digits)}, ${against}) — ${verdict(value, limit)}${missed && floorNote ? `; ${floorNote}` : ""}`;
  };
  const floorLatency = (floor: number, limit: number) =>
    Number.isFinite(floor) ? `the floor program ${fmt(floor, 3)}${floor > limit ? ", itself past the target" : ""}` : null;
  for (const dialect of dialects) {
    const name = dialect === "sqlite" ? "SQLite" : "Postgres";
    for (const mode of TAIL_MODES) {
      const label = `${name} ${mode === "json" ? "JSON" : "SSE"}`;
      const [lone, crowd] = [of(dialect, mode, 1, "gateway"), of(dialect, mode, 64, "gateway")];
      const [loneRelay, crowdRelay] = [of(dialect, mode, 1, "baseline"), of(dialect, mode, 64, "baseline")];
      const [loneFloor, crowdFloor] = [of(dialect, mode, 1, "floor"), of(dialect, mode, 64, "floor")];
      const latency = (what: string, value: number, limit: number, against: string, floor: number) =>
        lines.push(line(`${label}, ${what}`, value, limit, against, floorLatency(floor, limit)));
      if (dialect === "sqlite") {
        latency("1 in flight, added p99 ms", lone.p99, loneRelay.p99 + 1.5, `the relay's ${fmt(loneRelay.p99, 3)} + 1.5`, loneFloor.p99);
        latency("1 in flight, added p50 ms", lone.p50, loneRelay.p50 + 0.4, `the relay's ${fmt(loneRelay.p50, 3)} + 0.4`, loneFloor.p50);
      } else {
        // Held to the floor program itself: nothing to add.
        latency("1 in flight, added p99 ms", lone.p99, loneFloor.p99 + 2, `the floor program's ${fmt(loneFloor.p99, 3)} + 2`, Number.NaN);
        const pair = paired.get(`${dialect}|${mode}`);
        if (pair) {
          const [floor, gateway] = pair;
          lines.push(`  - paired with the floor program request by request (${gateway.ms.length} pairs, as this client sees them): gateway p99 ${fmt(gateway.p99, 3)} ms, floor ${fmt(floor.p99, 3)} ms (target ≤ ${fmt(floor.p99 + 2, 3)}) — ${verdict(gateway.p99, floor.p99 + 2)}; p50 ${fmt(gateway.p50, 3)} against ${fmt(floor.p50, 3)}`);
        }
      }
      latency("64 in flight, added p99 ms", crowd.p99, 2 * crowdRelay.p99, `2 × the relay's ${fmt(crowdRelay.p99, 3)}`, crowdFloor.p99);
      const floorRatio = loneFloor.cpu / crowdFloor.cpu;
      const floorCpu = Number.isFinite(floorRatio)
        ? `the floor program ${fmt(loneFloor.cpu, 1)} at 1 against ${fmt(crowdFloor.cpu, 1)} at 64 (${fmt(floorRatio, 2)}×)` : null;
      lines.push(line(`${label}, CPU µs per request at 1 in flight`, lone.cpu, 1.5 * crowd.cpu, `1.5 × ${fmt(crowd.cpu, 1)} at 64`, floorCpu, 1));
    }
  }
  return lines;
}
