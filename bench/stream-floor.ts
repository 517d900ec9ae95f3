// The floor of the slow-stream cell for any relay that sees each chunk in JavaScript on Bun:
// what it costs only to read 2,000 slow provider streams with fetch, and only to write 2,000
// slow streams to clients from a ReadableStream, each with nothing else to do.
//   BUN_CONFIG_MAX_HTTP_REQUESTS=8192 taskset -c 1 bun bench/stream-floor.ts
// Both are measured on one pinned core, as the gateway is in `make bench`; a relay that reads
// and writes every chunk pays both, per chunk.
import { cpuMicros, startServer, wrk } from "./processes.ts";
import { chatBody } from "./setup.ts";
import { SLOW } from "./slow-streams.ts";

const slowEnv = { BENCH_STREAM_CHUNKS: String(SLOW.chunks), BENCH_CHUNK_INTERVAL_MS: String(SLOW.intervalMs) };
const keysFile = `${process.env.TMPDIR ?? "/tmp"}/stream-floor-keys.txt`;
await Bun.write(keysFile, "sk-floor\n");

// Writing: the fake upstream is exactly a server that writes slow streams from JavaScript.
const writer = await startServer([process.execPath, new URL("./fake-upstream.ts", import.meta.url).pathname], slowEnv, 1);
const before = cpuMicros(writer.pid);
const written = await wrk(`${writer.url}/v1/chat/completions`, SLOW.streams, SLOW.seconds, 0, {
  BENCH_KEYS: keysFile, BENCH_BODY: chatBody("stream"), BENCH_PATH: "/v1/chat/completions",
});
const writeCpu = cpuMicros(writer.pid) - before;
const chunksWritten = written.requests * (SLOW.chunks + 2);
console.log(`writing: ${written.requests} streams, ${((100 * writeCpu) / (SLOW.seconds * 1e6)).toFixed(0)}% of a core, ${(writeCpu / chunksWritten).toFixed(2)} µs per chunk written`);

await writer.stop();

// Reading: this process (run it pinned: taskset -c 1) fetches slow streams from a server on the
// other core and only counts their reads.
const source = await startServer([process.execPath, new URL("./fake-upstream.ts", import.meta.url).pathname], slowEnv, 0);
let reads = 0;
const read = async () => {
  const response = await fetch(`${source.url}/v1/chat/completions`, { method: "POST", body: chatBody("stream") });
  for await (const _ of response.body as ReadableStream<Uint8Array>) reads++;
};
const readStart = process.cpuUsage();
const started = performance.now();
await Promise.all(Array.from({ length: SLOW.streams }, read));
const readCpu = process.cpuUsage(readStart);
const seconds = (performance.now() - started) / 1000;
console.log(
  `reading: ${SLOW.streams} streams in ${seconds.toFixed(2)} s, ${reads} reads, ${(((readCpu.user + readCpu.system) / 1e6 / seconds) * 100).toFixed(0)}% of a core, ${((readCpu.user + readCpu.system) / reads).toFixed(2)} µs per read` +
    (process.env.BUN_CONFIG_MAX_HTTP_REQUESTS ? "" : " (set BUN_CONFIG_MAX_HTTP_REQUESTS=8192, or fetch keeps 256 in flight)"),
);
await source.stop();
