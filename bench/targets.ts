// The benchmark's targets, each printed with what this run measured and its ratio against the bare
// relay (the baseline proxy) of the same run. They are not asserted anywhere: a missed one is
// a finding, explained with its measured floor in bench/PROFILE.md.
import type { SlowResult } from "./slow-streams.ts";

type Summary = Record<string, Record<string, number>>;

/** The slow-stream cell through bench/baseline-proxy.ts (`bare`), bench/chunk-relay.ts (`reading`) and bench/ledger-relay.ts (`ledger`). */
export type SlowRelays = Partial<Record<"bare" | "reading" | "ledger", SlowResult>>;

const fmt = (n: number | undefined, digits: number) => (n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : "n/a");
const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
const atMost = (value: number | undefined, limit: number) => value !== undefined && Number.isFinite(value) && value <= limit;

/** CPU per chunk, from the same cell with 20 and with 200 content chunks. */
const perChunk = (summary: Summary, dialect: string, side: "gatewayCpu" | "baselineCpu") =>
  ((summary[`${dialect}|stream200|64`]?.[side] ?? Number.NaN) - (summary[`${dialect}|stream|64`]?.[side] ?? Number.NaN)) / 180;

export function targetLines(
  summary: Summary,
  dialects: string[],
  memory: { after10k: number; after100k: number } | null,
  slow: (SlowResult & { ledger: { ok: boolean; detail: string }; relays: SlowRelays }) | null,
): string[] {
  const s = (key: string) => summary[key] ?? {};
  // With the floor program measured in the cell: what the gateway costs as a multiple of it.
  const floor = (key: string) => {
    const { gatewayCpu, floorCpu } = s(key);
    return floorCpu !== undefined && Number.isFinite(floorCpu)
      ? `; its floor program (bench/ledger-relay.ts) ${fmt(floorCpu, 1)} µs, so the gateway costs ${fmt((gatewayCpu ?? Number.NaN) / floorCpu, 2)}× its floor`
      : "";
  };
  const cpu = (key: string, limit: number, what: string) =>
    `- ${what}: CPU per request ${fmt(s(key).gatewayCpu, 1)} µs against the relay's ${fmt(s(key).baselineCpu, 1)} µs = ${fmt(s(key).cpuRatio, 2)}× (target ≤ ${limit}×) — ${verdict(atMost(s(key).cpuRatio, limit))}${floor(key)}`;
  const added = (key: string, limitMs: number, what: string) =>
    `- ${what}: added p50 over direct at c=1 ${fmt(s(key).addedP50, 3)} ms (target ≤ ${limitMs} ms) — ${verdict(atMost(s(key).addedP50, limitMs))}`;
  const [gatewayChunk, relayChunk] = [perChunk(summary, "sqlite", "gatewayCpu"), perChunk(summary, "sqlite", "baselineCpu")];
  const lines = [
    ...(dialects.includes("sqlite") ? [
      cpu("sqlite|json|64", 2.0, "SQLite, non-streaming, c=64"),
      cpu("sqlite|stream|64", 2.5, "SQLite, streaming 20 chunks, c=64"),
      `- SQLite, marginal CPU per chunk (20 and 200 chunks, c=64): ${fmt(gatewayChunk, 2)} µs against the relay's ${fmt(relayChunk, 2)} µs = ${fmt(gatewayChunk / relayChunk, 2)}× (target ≤ 1.3×) — ${verdict(atMost(gatewayChunk / relayChunk, 1.3))}`,
      added("sqlite|json|1", 0.25, "SQLite, non-streaming"),
    ] : []),
    ...dialects.flatMap((dialect) => {
      const name = dialect === "sqlite" ? "SQLite" : "Postgres";
      const door = (mode: string, what: string, against: string, limit: number) => {
        const d = s(`${dialect}|${mode}|64`);
        return `- ${name}, ${what}, c=64: CPU per request ${fmt(d.gatewayCpu, 1)} µs against ${against}'s ${fmt(d.againstCpu, 1)} µs, measured right before it in each run: ${fmt(d.doorRatio, 2)}× by run (target ≤ ${limit}×) — ${verdict(atMost(d.doorRatio, limit))}`;
      };
      return [
        door("messages", "/v1/messages streaming 20 chunks (translated)", "chat's stream", 1.1),
        door("responses2", "a Responses second turn by previous_response_id (stored, translated)", "a first turn", 1.2),
      ];
    }),
  ];
  if (dialects.includes("postgres")) {
    lines.push(
      cpu("postgres|json|64", 3.0, "Postgres, non-streaming, c=64"),
      added("postgres|json|1", 0.7, "Postgres, non-streaming"),
      `  - its floor in this run, bench/pg-floor-server.ts (the writes of a durable prepaid charge in two round trips and nothing else) on the database as the load left it: added p50 ${fmt(s("postgres|floor").addedP50, 3)} ms`,
    );
  }
  if (slow) {
    const addedP99 = slow.gateway.p99 - slow.direct.p99;
    const rssMb = slow.rss.peak / 1024;
    const relay = (name: keyof SlowRelays, what: string) => {
      const r = slow.relays[name];
      return r
        ? `  - through the ${what} in the same cell: added p99 ${fmt(r.gateway.p99 - r.direct.p99, 0)} ms, RSS peak ${fmt(r.rss.peak / 1024, 0)} MB, ${fmt(r.cpuShare * 100, 0)}% of its core, ${r.gateway.failures} failed`
        : `  - through the ${what}: not measured`;
    };
    lines.push(
      `- Slow streams (SQLite, 2,000 at once, 100 chunks 20 ms apart): ${slow.gateway.failures} failed of ${slow.gateway.requests} (target: none) — ${verdict(slow.gateway.failures === 0 && slow.gateway.requests > 0)}`,
      `- Slow streams: added p99 time to last byte ${fmt(addedP99, 0)} ms (gateway ${fmt(slow.gateway.p99, 0)} ms, direct ${fmt(slow.direct.p99, 0)} ms; target ≤ 50 ms) — ${verdict(atMost(addedP99, 50))}`,
      relay("bare", "bare relay (bench/baseline-proxy.ts)"),
      relay("reading", "relay that reads every chunk (bench/chunk-relay.ts)"),
      relay("ledger", "same relay with the gateway's durable ledger writes and nothing else, the floor (bench/ledger-relay.ts)"),
      `- Slow streams: gateway RSS peak ${fmt(rssMb, 0)} MB, median ${fmt(slow.rss.median / 1024, 0)} MB, ${fmt(slow.cpuShare * 100, 0)}% of its core (target ≤ 250 MB) — ${verdict(atMost(rssMb, 250))}`,
      `- Slow streams: ledger afterwards ${slow.ledger.ok ? "exact" : "MISMATCH"} (${slow.ledger.detail}) — ${verdict(slow.ledger.ok)}`,
    );
  }
  if (dialects.includes("sqlite")) lines.push(
    memory
      ? `- RSS after 100,000 requests within 20% of RSS after 10,000 (medians of readings every 100 ms through 2 s of load past each mark): ${memory.after10k} KiB → ${memory.after100k} KiB (${fmt((memory.after100k / memory.after10k - 1) * 100, 1)}%) — ${verdict(memory.after100k <= memory.after10k * 1.2)}`
      : "- memory: not measured",
  );
  return lines;
}
