// Two gateways' latency for a request alone, A/B by request rather than by run:
//   GATEWAY_TREE=<another checkout, built> bun bench/lone-ab.ts [sqlite|postgres] [json|stream] [pairs]
// A lone request's latency moves by ±0.1 ms between runs on a shared host, more than most
// changes to it; here the two gateways (A: GATEWAY_TREE's binary, B: this tree's) take turns
// request by request, in a random order within each pair, one request in flight, so that
// whatever the host does falls on both alike. Each has its own database and accounts; both
// run on core 1 and the fake upstream and this client on core 0, as in `make bench`. Prints
// each side's p50/p90/p99 (ms, as this client sees them), its CPU per request, and the median
// of B − A by pair. GATEWAY_TREE may hold a stand-in: a dist/gateway script that runs
// bench/ledger-relay.ts for `serve` and the real CLI otherwise pairs the gateway with its floor.
import { pairedLone, type PairedSide } from "./paired.ts";
import { cpuMicros, startServer, type Server } from "./processes.ts";
import { chatBody, freshDatabase, pathOf, prepareAccounts, type Dialect, type Mode } from "./setup.ts";

const [dialect = "sqlite", mode = "stream", pairsArg = "5000"] = process.argv.slice(2) as [Dialect?, Mode?, string?];
const treeA = process.env.GATEWAY_TREE;
if (!treeA) throw new Error("GATEWAY_TREE (the checkout to compare against, built) is required");
const pairs = Number(pairsArg);
const builds = [["A", `${treeA}/dist/gateway`], ["B", new URL("../dist/gateway", import.meta.url).pathname]] as const;

const upstream = await startServer([process.execPath, new URL("./fake-upstream.ts", import.meta.url).pathname], {}, 0);
interface Side { name: string; server: Server; database: { drop(): Promise<void> }; key: string }
const started: Side[] = [];
for (const [name, binary] of builds) {
  const database = await freshDatabase(dialect, `gw_bench_lone_${name.toLowerCase()}`);
  const env = { DATABASE_URL: database.url, OPENAI_BASE_URL: `${upstream.url}/v1`, OPENAI_API_KEY: "bench", SWEEP_INTERVAL_MS: "30000" };
  const { keys } = await prepareAccounts(env, 1, binary);
  const server = await startServer([binary, "serve", "--port", "0"], env, 1);
  started.push({ name, server, database, key: keys[0] as string });
}

try {
  const sides = started.map((side) => ({ name: side.name, url: side.server.url, keys: [side.key] })) as [PairedSide, PairedSide];
  const request = { path: pathOf(mode), body: chatBody(mode) };
  await pairedLone(sides, request, 0, 1_000);
  const cpuBefore = started.map((side) => cpuMicros(side.server.pid));
  const { sides: measured, medianDifference } = await pairedLone(sides, request, pairs, 0);
  measured.forEach((side, i) => {
    const cpu = (cpuMicros(started[i]!.server.pid) - cpuBefore[i]!) / pairs;
    console.log(`${side.name} ${dialect} ${mode} 1 in flight: p50 ${side.p50.toFixed(3)} p90 ${side.p90.toFixed(3)} p99 ${side.p99.toFixed(3)} ms, ${cpu.toFixed(1)} µs CPU/req`);
  });
  console.log(`B − A by pair: median ${(medianDifference * 1000).toFixed(1)} µs over ${pairs} pairs`);
} finally {
  for (const side of started) {
    await side.server.stop();
    await side.database.drop();
  }
  await upstream.stop();
}
