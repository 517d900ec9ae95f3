// One cell of the benchmark, for profiling between full `make bench` runs:
//   bun bench/cell.ts [sqlite|postgres] [json|stream|stream200|messages|responses2|doors|allowlist|floor] [connections] [seconds]
//   (messages: the gateway's /v1/messages stream against its own chat stream, in turn;
//   responses2: a Responses second turn by previous_response_id against a first turn;
//   doors: a Responses first turn, stored and with store: false, against a chat request, none streamed;
//   allowlist: chat requests with keys that have a model and an address allowlist against
//   the same requests with plain keys;
//   floor: chat JSON requests to bench/ledger-relay.ts, the floor program, against the gateway's;
//   under GATEWAY_BUN_FLAGS both take the flags, so that both are profiled)
//   bun bench/cell.ts sqlite slow          (the slow-stream cell, bench/slow-streams.ts)
//   bun bench/cell.ts sqlite slow-floor    (the same cell against bench/chunk-relay.ts)
//   bun bench/cell.ts sqlite slow-baseline (the same cell against bench/baseline-proxy.ts)
//   bun bench/cell.ts sqlite slow-ledger   (the same cell against bench/ledger-relay.ts)
// Starts the fake upstream, the baseline proxy and the gateway (the compiled binary, or
// `bun $GATEWAY_BUN_FLAGS src/main.ts serve` when GATEWAY_BUN_FLAGS is set, `--cpu-prof` say),
// runs wrk against the baseline and the gateway twice each and prints req/s, p50 and CPU per
// request, split by thread (bench/thread-cpu.ts), and, for streams, the median time to first
// byte of direct, baseline and gateway.
// The gateway's pid is printed first, for `perf record -p` or `strace -c -p` during the load.
// GATEWAY_TREE=<another checkout, built> runs that checkout's gateway (its binary, or its
// src/main.ts under GATEWAY_BUN_FLAGS) and makes its accounts with its CLI, under this harness:
// two revisions' profiles taken by the same load.
import { cpus } from "node:os";
import { cpuMicros, pinUser, startServer, timeToFirstByte, wrk } from "./processes.ts";
import { BINARY, chatBody, freshDatabase, pathOf, prepareAccounts, restrictedKeysFile, turnTwoBodies, type Dialect, type Mode } from "./setup.ts";
import { slowStreams } from "./slow-streams.ts";
import { threadMicros, threadsSpent } from "./thread-cpu.ts";

type CellMode = Mode | "doors" | "allowlist" | "floor" | "slow" | "slow-floor" | "slow-baseline" | "slow-ledger";
const [dialect = "sqlite", mode = "json", connectionsArg = "64", secondsArg = "3"] = process.argv.slice(2) as [Dialect?, CellMode?, string?, string?];
const bunFlags = process.env.GATEWAY_BUN_FLAGS;
const tree = process.env.GATEWAY_TREE ?? new URL("..", import.meta.url).pathname;
const binary = process.env.GATEWAY_TREE ? `${tree}/dist/gateway` : BINARY;
const gatewayCmd = bunFlags === undefined ? [binary] : [process.execPath, ...bunFlags.split(" ").filter(Boolean), `${tree}/src/main.ts`];
if (mode === "slow" || mode === "slow-floor" || mode === "slow-baseline" || mode === "slow-ledger") {
  const database = await freshDatabase(dialect, "gw_bench_cell");
  const env = { DATABASE_URL: database.url, OPENAI_API_KEY: "bench", SWEEP_INTERVAL_MS: "30000" };
  const { keysFile } = await prepareAccounts(env, 100, binary);
  const standIn = { "slow-floor": "./chunk-relay.ts", "slow-baseline": "./baseline-proxy.ts", "slow-ledger": "./ledger-relay.ts" }[mode as string];
  const command = standIn ? [process.execPath, new URL(standIn, import.meta.url).pathname] : gatewayCmd;
  const result = await slowStreams(env, keysFile, 100, { server: 1, load: 0 }, command);
  console.log(JSON.stringify(result, null, 1));
  await database.drop();
  process.exit(0);
}
const connections = Number(connectionsArg);
const seconds = Number(secondsArg);
// The modes that measure two of the gateway's own requests against each other, not it against the baseline.
const doorMode = mode === "messages" || mode === "responses2" || mode === "doors" || mode === "allowlist" || mode === "floor";
const body = doorMode ? "" : chatBody(mode);

const database = await freshDatabase(dialect, "gw_bench_cell");
const upstream = await startServer([process.execPath, new URL("./fake-upstream.ts", import.meta.url).pathname], {}, 0);
const baseline = await startServer([process.execPath, new URL("./baseline-proxy.ts", import.meta.url).pathname], { UPSTREAM_URL: `${upstream.url}/v1` }, 1);
const env = {
  DATABASE_URL: database.url, OPENAI_BASE_URL: `${upstream.url}/v1`, OPENAI_API_KEY: "bench", SWEEP_INTERVAL_MS: "30000",
  META_BASE_URL: `${upstream.url}/v1`, META_API_KEY: "bench",
};
// Fewer accounts make a quicker set-up (two CLI runs each); c=64 needs at least 22 (3 in flight each).
const { keys, emails, keysFile } = await prepareAccounts(env, Number(process.env.BENCH_ACCOUNTS ?? 100), binary);
// As `make bench` does: Postgres on the load generator's core, so that the gateway's is its own.
const postgresPinned = dialect === "postgres" && pinUser("postgres", "0");
const gateway = await startServer([...gatewayCmd, "serve", "--port", "0"], env, 1);
console.log(`gateway pid ${gateway.pid}`);
const bodies = mode === "responses2" ? await turnTwoBodies(gateway.url, keys) : undefined;
// A second key for each account, held to the benchmark's model and to loopback.
const restrictedKeys = mode === "allowlist" ? await restrictedKeysFile(env, emails, binary) : undefined;
const floor = mode === "floor"
  ? await startServer([process.execPath, ...(bunFlags ?? "").split(" ").filter(Boolean), new URL("./ledger-relay.ts", import.meta.url).pathname], env, 1)
  : undefined;
const wrkEnv = (cellMode: Mode, keys = keysFile) => ({
  BENCH_KEYS: keys, BENCH_BODY: chatBody(cellMode), BENCH_PATH: pathOf(cellMode), ...(cellMode === "responses2" && bodies ? { BENCH_BODIES: bodies } : {}),
});
// Each side: its name, its server, the request it is sent and the keys it is sent with.
const sides: (readonly [string, typeof gateway, Mode, string?])[] = mode === "messages"
  ? [["chat", gateway, "stream"], ["messages", gateway, "messages"]]
  : mode === "responses2"
    ? [["turn 1", gateway, "responses"], ["turn 2", gateway, "responses2"]]
    : mode === "doors"
      ? [["chat", gateway, "json"], ["responses", gateway, "responses"], ["unstored", gateway, "unstored"]]
      : mode === "allowlist"
        ? [["plain", gateway, "json"], ["allowlist", gateway, "json", restrictedKeys]]
        : floor
          ? [["floor", floor, "json"], ["gateway", gateway, "json"]]
          : [["baseline", baseline, mode as Mode], ["gateway", gateway, mode as Mode]];
try {
  for (const [, server, cellMode, keys] of sides) await wrk(`${server.url}${pathOf(cellMode)}`, 4, 1, 0, wrkEnv(cellMode, keys));
  for (let run = 0; run < 2; run++) {
    for (const [name, server, cellMode, keys] of sides) {
      const before = cpuMicros(server.pid);
      const threadsBefore = threadMicros(server.pid);
      const result = await wrk(`${server.url}${pathOf(cellMode)}`, connections, seconds, 0, wrkEnv(cellMode, keys));
      const cpu = (cpuMicros(server.pid) - before) / result.requests;
      console.log(`${name.padEnd(9)} ${dialect} ${mode} c=${connections}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(3)} p90 ${result.p90.toFixed(3)} p99 ${result.p99.toFixed(3)} ms, ${cpu.toFixed(1)} µs CPU/req, ${result.failures} failed`);
      // A profile sees the JavaScript thread only: the split by thread shows the rest.
      const threads = threadsSpent(threadsBefore, threadMicros(server.pid)).map(([thread, micros]) => `${thread} ${(micros / result.requests).toFixed(1)}`);
      console.log(`${"".padEnd(9)} by thread, µs/req: ${threads.join(", ")}`);
    }
  }
  if (mode !== "json" && !doorMode) {
    for (const [name, server] of [["direct", upstream], ["baseline", baseline], ["gateway", gateway]] as const) {
      const ms = await timeToFirstByte(`${server.url}/v1/chat/completions`, keys, body, 400);
      console.log(`${name.padEnd(8)} time to first byte: ${ms.toFixed(3)} ms`);
    }
  }
} finally {
  if (postgresPinned) pinUser("postgres", `0-${cpus().length - 1}`);
  await gateway.stop();
  await floor?.stop();
  await baseline.stop();
  await upstream.stop();
  await database.drop();
}
