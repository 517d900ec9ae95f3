// `make bench`: the gateway's cost per request against a bare Bun pass-through proxy and
// against the upstream itself, on SQLite and Postgres, streaming and not, at concurrency
// 1, 16 and 64. Runs are interleaved and repeated; medians are reported in a table and in
// bench/RESULTS.md, followed by a check that the ledger is exact after the load.
// BENCH_DATABASES=sqlite|postgres measures one database; BENCH_SECONDS, BENCH_RUNS and
// BENCH_ACCOUNTS change the length of a cell, the runs per cell and the accounts.
import { writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { checkLedger } from "./ledger-check.ts";
import { pairedLone } from "./paired.ts";
import { ensureWrk, measure, median, pinSelf, pinUser, rssKiB, startServer, timeToFirstByte, wrk, type Sample, type Server } from "./processes.ts";
import { BINARY, chatBody, freshDatabase, pathOf, PG_SERVER, postgresReachable, prepareAccounts, turnTwoBodies, type Mode } from "./setup.ts";
import { SLOW, slowStreams, type SlowResult } from "./slow-streams.ts";
import type { SlowRelays } from "./targets.ts";
import { targetLines } from "./targets.ts";
import { collectTails, tailTable, tailTargets, TAIL_CONNECTIONS, type Paired, type Tails } from "./tail.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = [1, 16, 64];
// Streams of 200 chunks are measured at c=64 only: with those of 20 they give the cost per chunk.
const CELLS: { mode: Mode; connections: number }[] = [
  ...(["json", "stream"] as Mode[]).flatMap((mode) => CONCURRENCY.map((connections) => ({ mode, connections }))),
  { mode: "stream200", connections: 64 },
];
// The other front doors, measured on the gateway after the chat cells of each run, each priced
// as its CPU per request against another cell's measured right before it on the same gateway
// (the host drifts between moments further apart): /v1/messages against chat's stream of the
// same request, a Responses first turn against chat JSON, a second turn (previous_response_id)
// against a first turn. The ratio is the median of each run's own.
const DOOR_CELLS: { mode: Mode; against: Mode }[] = [
  { mode: "messages", against: "stream" },
  { mode: "responses", against: "json" },
  { mode: "responses2", against: "responses" },
];
const DOOR_CONNECTIONS = 64;
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 100);
// Postgres's target at 1 in flight holds the gateway to its floor program's p99. Runs of each
// taken in turn move by milliseconds at the p99 on a shared host (the database shares the load
// generator's core), so the two are also measured request by request (bench/paired.ts).
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3000);
const RESULTS = new URL("./RESULTS.md", import.meta.url).pathname;
// The server under test gets a core of its own; the load generator and the upstream share the other.
const SERVER_CORE = cpus().length > 1 ? 1 : 0;
const LOAD_CORE = 0;

// floor = bench/ledger-relay.ts: a relay with the gateway's durable store calls and nothing else
// (key, reservation, settlement and their commits), measured beside the gateway in FLOOR_CELLS.
type Target = "direct" | "baseline" | "gateway" | "floor";
const FLOOR_CELLS = new Set(["json", "stream"].flatMap((mode) => TAIL_CONNECTIONS.map((connections) => `${mode}|${connections}`)));
const targetsOf = (mode: Mode, connections: number): Target[] =>
  FLOOR_CELLS.has(`${mode}|${connections}`) ? ["direct", "baseline", "gateway", "floor"] : ["direct", "baseline", "gateway"];

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * What the Postgres c=1 cell cannot go under in this run: bench/pg-floor-server.ts with every
 * step of a durable prepaid charge (FLOOR_STEPS=complete), measured as the cell is.
 */
async function floorP50(upstreamUrl: string, databaseUrl: string, keysFile: string): Promise<number> {
  const floor = await startServer([process.execPath, new URL("./pg-floor-server.ts", import.meta.url).pathname], {
    UPSTREAM_URL: `${upstreamUrl}/v1`, DATABASE_URL: databaseUrl, FLOOR_STEPS: "complete",
  }, SERVER_CORE);
  try {
    const url = `${floor.url}/v1/chat/completions`;
    await wrk(url, 4, 1, LOAD_CORE, { BENCH_KEYS: keysFile, BENCH_BODY: chatBody("json"), BENCH_PATH: "/v1/chat/completions" });
    const runs: number[] = [];
    for (let run = 1; run <= RUNS; run++) runs.push((await measure(floor, url, "json", 1, keysFile, SECONDS, LOAD_CORE)).p50);
    return median(runs);
  } finally {
    await floor.stop();
  }
}

/**
 * RSS of a fresh gateway after 10,000 and after 100,000 non-streaming requests. The heap
 * breathes with garbage collection, so each figure is the median of RSS read every 100 ms
 * through the first 2-second round of load that starts past the mark.
 */
async function memoryGrowth(gatewayEnv: Record<string, string>, keysFile: string): Promise<{ after10k: number; after100k: number }> {
  const gateway = await startServer([BINARY, "serve", "--port", "0"], gatewayEnv, SERVER_CORE);
  const url = `${gateway.url}/v1/chat/completions`;
  const load = () => wrk(url, 16, 2, LOAD_CORE, { BENCH_KEYS: keysFile, BENCH_BODY: chatBody("json"), BENCH_PATH: new URL(url).pathname });
  const loadSampling = async (): Promise<{ requests: number; rss: number }> => {
    const readings: number[] = [];
    const timer = setInterval(() => readings.push(rssKiB(gateway.pid)), 100);
    try {
      return { requests: (await load()).requests, rss: median(readings) };
    } finally {
      clearInterval(timer);
    }
  };
  let served = 0;
  const deadline = Date.now() + 180_000;
  try {
    while (served < 10_000) served += (await load()).requests;
    const at10k = await loadSampling();
    served += at10k.requests;
    while (served < 100_000 && Date.now() < deadline) served += (await load()).requests;
    const after100k = served >= 100_000 ? (await loadSampling()).rss : Number.NaN;
    return { after10k: at10k.rss, after100k };
  } finally {
    await gateway.stop();
  }
}

// BENCH_DATABASES=sqlite or =postgres measures that database alone (a quicker run for one
// question); its report goes to a file of its own, so that RESULTS.md always holds a whole run.
const ONLY = process.env.BENCH_DATABASES;
if (ONLY !== undefined && ONLY !== "sqlite" && ONLY !== "postgres") throw new Error(`BENCH_DATABASES must be sqlite or postgres (got "${ONLY}")`);
const REPORT = ONLY === undefined ? RESULTS : join(tmpdir(), `gateway-bench-RESULTS.${ONLY}.md`);

async function dialectsToMeasure(): Promise<("sqlite" | "postgres")[]> {
  if (ONLY === "sqlite") return ["sqlite"];
  const reachable = await postgresReachable();
  if (ONLY === "postgres") {
    if (!reachable) throw new Error(`BENCH_DATABASES=postgres, but Postgres at ${PG_SERVER} is not reachable`);
    return ["postgres"];
  }
  if (!reachable) log(`Postgres at ${PG_SERVER} is not reachable: measuring SQLite only`);
  return reachable ? ["sqlite", "postgres"] : ["sqlite"];
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

async function main(): Promise<void> {
  await ensureWrk();
  const upstream = await startServer([process.execPath, new URL("./fake-upstream.ts", import.meta.url).pathname], {}, LOAD_CORE);
  const baseline = await startServer([process.execPath, new URL("./baseline-proxy.ts", import.meta.url).pathname], { UPSTREAM_URL: `${upstream.url}/v1` }, SERVER_CORE);
  const dialects = await dialectsToMeasure();

  const rows: string[] = [];
  const checks: string[] = [];
  const summary: Record<string, Record<string, number>> = {};
  const tails: Tails = new Map();
  const paired: Paired = new Map();
  let memory: { after10k: number; after100k: number } | null = null;
  let slow: SlowResult | null = null;
  let slowLedger: { ok: boolean; detail: string } | null = null;
  const slowRelays: SlowRelays = {};
  let postgresPinned = false;

  try {
    for (const dialect of dialects) {
      const database = await freshDatabase(dialect);
      const env = {
        DATABASE_URL: database.url, OPENAI_BASE_URL: `${upstream.url}/v1`, OPENAI_API_KEY: "bench", SWEEP_INTERVAL_MS: "30000",
        // The Responses cells' model is Meta's, translated to a chat call to the same fake.
        META_BASE_URL: `${upstream.url}/v1`, META_API_KEY: "bench",
      };
      log(`[${dialect}] preparing ${ACCOUNTS} accounts through the CLI…`);
      const { keys, emails, keysFile } = await prepareAccounts(env, ACCOUNTS);
      // Postgres gets the load generator's core, so that the gateway's core is its own.
      if (dialect === "postgres") postgresPinned = pinUser("postgres", String(LOAD_CORE));
      const gateway = await startServer([BINARY, "serve", "--port", "0"], env, SERVER_CORE);
      const floor = await startServer([process.execPath, new URL("./ledger-relay.ts", import.meta.url).pathname], env, SERVER_CORE);
      const targets: Record<Target, { server: Server; url: string }> = {
        direct: { server: upstream, url: `${upstream.url}/v1/chat/completions` },
        baseline: { server: baseline, url: `${baseline.url}/v1/chat/completions` },
        gateway: { server: gateway, url: `${gateway.url}/v1/chat/completions` },
        floor: { server: floor, url: `${floor.url}/v1/chat/completions` },
      };
      const samples = new Map<string, Sample[]>();
      // Each run's door against the cell measured right before it, CPU µs per request.
      const doorPairs = new Map<Mode, { door: number; against: number }[]>();
      const ttfb = new Map<Target, number[]>();
      try {
        // Warm every path once so that no measured run pays for compilation or connection set-up.
        for (const t of Object.values(targets)) await wrk(t.url, 4, 1, LOAD_CORE, { BENCH_KEYS: keysFile, BENCH_BODY: chatBody("json"), BENCH_PATH: "/v1/chat/completions" });
        const turnTwo = await turnTwoBodies(gateway.url, keys);
        const onDoor = (mode: Mode, connections: number, seconds: number) =>
          measure(gateway, `${gateway.url}${pathOf(mode)}`, mode, connections, keysFile, seconds, LOAD_CORE, mode === "responses2" ? turnTwo : undefined);
        for (const { mode } of DOOR_CELLS) await onDoor(mode, 4, 1);
        for (let run = 1; run <= RUNS; run++) {
          for (const { mode, connections } of CELLS) {
            for (const target of targetsOf(mode, connections)) {
              const sample = await measure(targets[target].server, targets[target].url, mode, connections, keysFile, SECONDS, LOAD_CORE);
              const key = `${mode}|${connections}|${target}`;
              samples.set(key, [...(samples.get(key) ?? []), sample]);
              log(`[${dialect}] run ${run} ${mode} c=${connections} ${target}: ${fmt(sample.rps)} req/s, p50 ${fmt(sample.p50, 3)} ms, ${fmt(sample.cpuPerRequestUs, 1)} µs CPU/req${sample.failures ? `, ${sample.failures} FAILED` : ""}`);
            }
          }
          let previous: { mode: Mode; sample: Sample } | null = null;
          for (const { mode, against } of DOOR_CELLS) {
            const before = previous?.mode === against ? previous.sample : await onDoor(against, DOOR_CONNECTIONS, SECONDS);
            const door = await onDoor(mode, DOOR_CONNECTIONS, SECONDS);
            samples.set(`${mode}|${DOOR_CONNECTIONS}|gateway`, [...(samples.get(`${mode}|${DOOR_CONNECTIONS}|gateway`) ?? []), door]);
            doorPairs.set(mode, [...(doorPairs.get(mode) ?? []), { door: door.cpuPerRequestUs, against: before.cpuPerRequestUs }]);
            log(`[${dialect}] run ${run} ${mode} c=${DOOR_CONNECTIONS} gateway: ${fmt(door.rps)} req/s, ${fmt(door.cpuPerRequestUs, 1)} µs CPU/req${door.failures ? `, ${door.failures} FAILED` : ""}; ${against} right before it ${fmt(before.cpuPerRequestUs, 1)} µs CPU/req`);
            previous = { mode, sample: door };
          }
          for (const target of ["direct", "baseline", "gateway"] as Target[]) {
            ttfb.set(target, [...(ttfb.get(target) ?? []), await timeToFirstByte(targets[target].url, keys, chatBody("stream"), 200)]);
          }
        }
        if (dialect === "postgres") {
          pinSelf(String(LOAD_CORE));
          try {
            for (const mode of ["json", "stream"] as const) {
              log(`[postgres] ${mode} at 1 in flight: the gateway and the floor program paired request by request, ${PAIRS} pairs…`);
              const pairs = await pairedLone(
                [{ name: "floor", url: floor.url, keys }, { name: "gateway", url: gateway.url, keys }],
                { path: "/v1/chat/completions", body: chatBody(mode) },
                PAIRS,
              );
              paired.set(`${dialect}|${mode}`, pairs.sides);
            }
          } finally {
            pinSelf(`0-${cpus().length - 1}`);
          }
        }
      } finally {
        await gateway.stop();
        await floor.stop();
      }
      collectTails(tails, dialect, samples);
      const ledger = await checkLedger(database.url, emails);
      checks.push(`- ${dialect} ledger after the load: ${ledger.ok ? "exact" : "MISMATCH"} (${ledger.detail})`);
      if (dialect === "postgres") {
        log("[postgres] the floor of the c=1 cell (bench/pg-floor-server.ts) on the database as the load left it…");
        const direct = median((samples.get("json|1|direct") ?? []).map((s) => s.p50));
        summary["postgres|floor"] = { addedP50: (await floorP50(upstream.url, database.url, keysFile)) - direct };
      }
      if (dialect === "sqlite") {
        log(`[sqlite] slow streams: ${SLOW.streams} at once, ${SLOW.chunks} chunks ${SLOW.intervalMs} ms apart…`);
        slow = await slowStreams(env, keysFile, ACCOUNTS, { server: SERVER_CORE, load: LOAD_CORE });
        slowLedger = await checkLedger(database.url, emails);
        // The same cell through three stand-ins: what a relay alone adds here, one that reads every
        // chunk, and that one with the gateway's durable ledger writes (the floor of the p99 target).
        for (const [name, program] of [["bare", "./baseline-proxy.ts"], ["reading", "./chunk-relay.ts"], ["ledger", "./ledger-relay.ts"]] as const) {
          log(`[sqlite] slow streams through the ${name} relay…`);
          slowRelays[name] = await slowStreams(env, keysFile, ACCOUNTS, { server: SERVER_CORE, load: LOAD_CORE }, [process.execPath, new URL(program, import.meta.url).pathname]);
        }
        memory = await memoryGrowth(env, keysFile);
      }
      await database.drop();

      for (const { mode, connections } of CELLS) {
        const med = (target: Target, field: keyof Sample) => median((samples.get(`${mode}|${connections}|${target}`) ?? []).map((s) => s[field]));
        for (const target of targetsOf(mode, connections)) {
          const failures = (samples.get(`${mode}|${connections}|${target}`) ?? []).reduce((n, s) => n + s.failures, 0);
          rows.push(`| ${dialect} | ${mode} | ${connections} | ${target} | ${fmt(med(target, "rps"))} | ${fmt(med(target, "p50"), 3)} | ${fmt(med(target, "p90"), 3)} | ${fmt(med(target, "p99"), 3)} | ${fmt(med(target, "cpuPerRequestUs"), 1)} | ${failures} |`);
        }
        const ratio = (field: keyof Sample) => med("gateway", field) / med("baseline", field);
        rows.push(`| ${dialect} | ${mode} | ${connections} | **gateway/baseline** | **${fmt(ratio("rps"), 2)}×** | | | | **${fmt(ratio("cpuPerRequestUs"), 2)}×** | |`);
        summary[`${dialect}|${mode}|${connections}`] = {
          rpsRatio: ratio("rps"),
          cpuRatio: ratio("cpuPerRequestUs"),
          gatewayCpu: med("gateway", "cpuPerRequestUs"),
          baselineCpu: med("baseline", "cpuPerRequestUs"),
          floorCpu: med("floor", "cpuPerRequestUs"),
          addedP50: med("gateway", "p50") - med("direct", "p50"),
        };
      }
      for (const { mode } of DOOR_CELLS) {
        const doorSamples = samples.get(`${mode}|${DOOR_CONNECTIONS}|gateway`) ?? [];
        const doorMed = (field: keyof Sample) => median(doorSamples.map((sample) => sample[field]));
        const doorFailures = doorSamples.reduce((n, sample) => n + sample.failures, 0);
        rows.push(`| ${dialect} | ${mode} | ${DOOR_CONNECTIONS} | gateway | ${fmt(doorMed("rps"))} | ${fmt(doorMed("p50"), 3)} | ${fmt(doorMed("p90"), 3)} | ${fmt(doorMed("p99"), 3)} | ${fmt(doorMed("cpuPerRequestUs"), 1)} | ${doorFailures} |`);
        const pairs = doorPairs.get(mode) ?? [];
        summary[`${dialect}|${mode}|${DOOR_CONNECTIONS}`] = {
          gatewayCpu: doorMed("cpuPerRequestUs"),
          againstCpu: median(pairs.map((pair) => pair.against)),
          doorRatio: median(pairs.map((pair) => pair.door / pair.against)),
        };
      }
      summary[`${dialect}|ttfb`] = { added: median(ttfb.get("gateway") ?? []) - median(ttfb.get("direct") ?? []) };
      checks.push(
        `- ${dialect} streaming time to first byte (c=1, median of ${RUNS}×200): direct ${fmt(median(ttfb.get("direct") ?? []), 3)} ms, baseline ${fmt(median(ttfb.get("baseline") ?? []), 3)} ms, gateway ${fmt(median(ttfb.get("gateway") ?? []), 3)} ms`,
      );
    }
  } finally {
    if (postgresPinned) pinUser("postgres", `0-${cpus().length - 1}`);
    await baseline.stop();
    await upstream.stop();
  }

  const targets = targetLines(summary, dialects, memory, slow && slowLedger ? { ...slow, ledger: slowLedger, relays: slowRelays } : null);

  const version = (cmd: string[]) => Bun.spawnSync(cmd).stdout.toString().trim().split("\n")[0];
  const report = [
    "# Benchmark results",
    "",
    `Generated by \`make bench\` on ${new Date().toISOString()}.`,
    "",
    `- Machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB; server under test pinned to core ${SERVER_CORE}, wrk, the fake upstream and (for its runs) PostgreSQL to core ${LOAD_CORE}`,
    `- Versions: bun ${Bun.version}, ${version(["wrk", "--version"]) ?? "wrk"}, gateway ${BINARY}`,
    `- Settings: ${RUNS} interleaved runs of ${SECONDS} s per cell (medians shown), ${ACCOUNTS} accounts rotated by wrk so none exceeds 3 requests in flight; request: gpt-4.1-nano, max_tokens 32; upstream: fixed completion / 20-chunk SSE with usage`,
    "- direct = wrk → fake upstream; baseline = wrk → minimal Bun fetch proxy → upstream; gateway = wrk → `gateway serve` → upstream; floor (chat cells at 1 and 64 in flight) = wrk → bench/ledger-relay.ts (a relay with the gateway's durable store calls: key, reservation, settlement, their commits; nothing else) → upstream. CPU is the server process's user+system time from /proc divided by requests served.",
    "",
    "## Targets",
    "",
    ...targets,
    "",
    "## Added latency at 1 and 64 in flight",
    "",
    "Each server's latency minus direct-to-upstream latency at the same percentile (medians of the runs); floor = bench/ledger-relay.ts.",
    "",
    ...tailTable(tails),
    "",
    ...tailTargets(tails, dialects, paired),
    "",
    "## Checks",
    "",
    ...checks,
    "",
    "## Measurements",
    "",
    "| db | mode | conc | target | req/s | p50 ms | p90 ms | p99 ms | CPU µs/req | failed |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    "What each cell costs, its floor program's figure and where the time goes: [PROFILE.md](PROFILE.md); the latest",
    "comparison with another revision (`make bench-ab REV=…`): [AB.md](AB.md).",
    "",
  ].join("\n");
  writeFileSync(REPORT, report);
  console.log(report);
  if (REPORT !== RESULTS) log(`BENCH_DATABASES=${ONLY}: the report is in ${REPORT}; bench/RESULTS.md keeps the last whole run`);
}

await main();
