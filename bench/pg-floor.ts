// The floor of "Postgres added p50 at c=1": what the fewest round trips a durable prepaid
// charge needs add to a bare relay on this machine, with nothing else (no parsing, pricing,
// key lookup, usage log or ledger row). Runs as `make bench` runs the cell: wrk at c=1 on
// core 0 with Postgres, the server on core 1, against the fake upstream; median of 3 runs.
//   bun bench/pg-floor.ts
// The gateway cannot add less at c=1 than the `charge` line: a charge committed (WAL flushed)
// before the reply, so that a client reading its balance after the answer sees it.
import { median, pinUser, startServer, wrk } from "./processes.ts";
import { chatBody, freshDatabase, prepareAccounts } from "./setup.ts";
import { cpus } from "node:os";

const database = await freshDatabase("postgres", "gw_bench_pg_floor");
const pinned = pinUser("postgres", "0");
const upstream = await startServer([process.execPath, new URL("./fake-upstream.ts", import.meta.url).pathname], {}, 0);
const { keysFile } = await prepareAccounts({ DATABASE_URL: database.url }, 1);
const wrkEnv = { BENCH_KEYS: keysFile, BENCH_BODY: chatBody("json"), BENCH_PATH: "/v1/chat/completions" };
const p50 = async (url: string) => {
  await wrk(url, 1, 1, 0, wrkEnv);
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push((await wrk(url, 1, 3, 0, wrkEnv)).p50);
  return median(runs);
};
try {
  const direct = await p50(`${upstream.url}/v1/chat/completions`);
  console.log(`direct: p50 ${direct.toFixed(3)} ms`);
  for (const steps of (process.env.FLOOR_STEPS ?? "relay,charge,ledger,complete").split(",")) {
    const server = await startServer([process.execPath, new URL("./pg-floor-server.ts", import.meta.url).pathname], {
      UPSTREAM_URL: `${upstream.url}/v1`, DATABASE_URL: database.url, FLOOR_STEPS: steps,
    }, 1);
    const p = await p50(`${server.url}/v1/chat/completions`);
    console.log(`${steps}: p50 ${p.toFixed(3)} ms, added over direct ${(p - direct).toFixed(3)} ms`);
    await server.stop();
  }
} finally {
  await upstream.stop();
  if (pinned) pinUser("postgres", `0-${cpus().length - 1}`);
  await database.drop();
}
