// What holding many slow streams at once costs a relay, in steady state rather than in the
// slow-stream cell's waves: opens N streams of 400 chunks 20 ms apart through one server (the
// gateway, bench/chunk-relay.ts or bench/baseline-proxy.ts) on SQLite, waits until they all
// stream, then reads its CPU per chunk relayed and its memory per stream over 3 s.
//   BUN_CONFIG_MAX_HTTP_REQUESTS=8192 bun bench/stream-hold.ts [gateway|reading|bare] [streams]
// (without that variable this process's fetch keeps only 256 streams open.) With
// GATEWAY_BUN_FLAGS set, the gateway runs from source under those Bun flags (the relays always
// run from source, and get them too): `--preload ./bench/heap-probe.ts`, say.
import { cpuMicros, rssKiB, startServer } from "./processes.ts";
import { BINARY, chatBody, freshDatabase, prepareAccounts } from "./setup.ts";

const [target = "gateway", streamsArg = "1000"] = process.argv.slice(2);
const streams = Number(streamsArg);
const relays: Record<string, string> = { reading: "./chunk-relay.ts", bare: "./baseline-proxy.ts" };
const bunFlags = (process.env.GATEWAY_BUN_FLAGS ?? "").split(" ").filter(Boolean);
const command = relays[target]
  ? [process.execPath, ...bunFlags, new URL(relays[target], import.meta.url).pathname]
  : process.env.GATEWAY_BUN_FLAGS === undefined
    ? [BINARY]
    : [process.execPath, ...bunFlags, new URL("../src/main.ts", import.meta.url).pathname];

const database = await freshDatabase("sqlite");
const upstream = await startServer([process.execPath, new URL("./fake-upstream.ts", import.meta.url).pathname], {
  BENCH_STREAM_CHUNKS: "400",
  BENCH_CHUNK_INTERVAL_MS: "20",
}, 0);
const env = { DATABASE_URL: database.url, OPENAI_API_KEY: "bench", SWEEP_INTERVAL_MS: "30000" };
const { keys } = await prepareAccounts(env, 20);
const server = await startServer([...command, "serve", "--port", "0"], {
  ...env,
  OPENAI_BASE_URL: `${upstream.url}/v1`,
  MAX_CONCURRENT_REQUESTS: String(streams),
  BUN_CONFIG_MAX_HTTP_REQUESTS: "8192",
}, 1);
try {
  const idleKiB = rssKiB(server.pid);
  let chunks = 0;
  const open = Array.from({ length: streams }, async (_, i) => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys[i % keys.length]}`, "content-type": "application/json" },
      body: chatBody("stream"),
    });
    // Every content chunk ends with a blank line; counted by its bytes rather than parsed.
    for await (const read of response.body as ReadableStream<Uint8Array>) {
      for (let at = read.indexOf(10); at >= 0; at = read.indexOf(10, at + 1)) if (read[at + 1] === 10) chunks++;
    }
  });
  await Bun.sleep(2500); // every stream open and past its first chunks
  const [cpuBefore, chunksBefore] = [cpuMicros(server.pid), chunks];
  await Bun.sleep(3000);
  const cpu = cpuMicros(server.pid) - cpuBefore;
  const relayed = chunks - chunksBefore;
  const rss = rssKiB(server.pid);
  console.log(JSON.stringify({
    target,
    streams,
    chunksPerSecond: Math.round(relayed / 3),
    asked: streams * 50,
    cpuShare: +(cpu / 3e6).toFixed(2),
    cpuPerChunkUs: +(cpu / relayed).toFixed(1),
    rssIdleMB: Math.round(idleKiB / 1024),
    rssMB: Math.round(rss / 1024),
    perStreamKB: Math.round((rss - idleKiB) / streams),
  }));
  await Promise.all(open);
} finally {
  await server.stop();
  await upstream.stop();
  await database.drop();
}
