// Two gateways' latency for a request alone, A/B by request rather than by run:
//   GATEWAY_TREE=<another checkout, built> bun bench/lone-ab.ts [sqlite|postgres] [json|stream] [pairs]
// A lone request's latency moves by ±0.1 ms between runs on a shared host, more than most
// changes to it; here the two gateways (A: GATEWAY_TREE's binary, B: this tree's) take turns
// request by request, in a random order within each pair, one request in flight, so that
// whatever the host does falls on both alike. Each has its own database and accounts; both
// run on core 1 and the fake upstream and this client on core 0, as in `make bench`. Prints
// each side's p50/p90/p99 (ms, as this client sees them), its CPU per request, and the median
// of B − A by pair.
import { cpuMicros, median, startServer, type Server } from "./processes.ts";
import { chatBody, freshDatabase, pathOf, prepareAccounts, type Dialect, type Mode } from "./setup.ts";

const [dialect = "sqlite", mode = "stream", pairsArg = "5000"] = process.argv.slice(2) as [Dialect?, Mode?, string?];
const treeA = process.env.GATEWAY_TREE;
if (!treeA) throw new Error("GATEWAY_TREE (the checkout to compare against, built) is required");
const pairs = Number(pairsArg);
const sides = [["A", `${treeA}/dist/gateway`], ["B", new URL("../dist/gateway", import.meta.url).pathname]] as const;

const upstream = await startServer([process.execPath, new URL("./fake-upstream.ts", import.meta.url).pathname], {}, 0);
interface Side { name: string; server: Server; database: { drop(): Promise<void> }; key: string; ms: number[] }
const started: Side[] = [];
for (const [name, binary] of sides) {
  const database = await freshDatabase(dialect, `gw_bench_lone_${name.toLowerCase()}`);
  const env = { DATABASE_URL: database.url, OPENAI_BASE_URL: `${upstream.url}/v1`, OPENAI_API_KEY: "bench", SWEEP_INTERVAL_MS: "30000" };
  const { keys } = await prepareAccounts(env, 1, binary);
  const server = await startServer([binary, "serve", "--port", "0"], env, 1);
  started.push({ name, server, database, key: keys[0] as string, ms: [] as number[] });
}

const body = chatBody(mode);
/** One request to a side, its answer read to the end; ms as this client sees it. */
async function once(side: Side): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${side.server.url}${pathOf(mode)}`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${side.key}` }, body,
  });
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${side.name} answered ${res.status}`);
  return ms;
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] as number;
try {
  for (let i = 0; i < 1_000; i++) for (const side of started) await once(side);
  const differences: number[] = [];
  const cpuBefore = started.map((side) => cpuMicros(side.server.pid));
  for (let i = 0; i < pairs; i++) {
    const order = Math.random() < 0.5 ? [0, 1] : [1, 0];
    const took = [0, 0];
    for (const at of order) took[at] = await once(started[at]!);
    started[0]!.ms.push(took[0]!);
    started[1]!.ms.push(took[1]!);
    differences.push(took[1]! - took[0]!);
  }
  started.forEach((side, i) => {
    const cpu = (cpuMicros(side.server.pid) - cpuBefore[i]!) / pairs;
    console.log(`${side.name} ${dialect} ${mode} 1 in flight: p50 ${quantile(side.ms, 0.5).toFixed(3)} p90 ${quantile(side.ms, 0.9).toFixed(3)} p99 ${quantile(side.ms, 0.99).toFixed(3)} ms, ${cpu.toFixed(1)} µs CPU/req`);
  });
  console.log(`B − A by pair: median ${(median(differences) * 1000).toFixed(1)} µs over ${pairs} pairs`);
} finally {
  for (const side of started) {
    await side.server.stop();
    await side.database.drop();
  }
  await upstream.stop();
}
