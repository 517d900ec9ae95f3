// The slow-stream cell: 2,000 concurrent streams of 100 chunks 20 ms apart, as models write,
// through the gateway on SQLite. Each stream holds a reservation for its ~2 s; the cell checks
// that none fails, what the gateway adds to the time to the last byte (p99, against the
// upstream direct), the gateway's memory under that load, and the ledger afterwards.
import { cpuMicros, rssKiB, startServer, wrk, type LoadResult } from "./processes.ts";
import { BINARY, chatBody } from "./setup.ts";

export const SLOW = { streams: Number(process.env.BENCH_SLOW_STREAMS ?? 2000), chunks: 100, intervalMs: 20, seconds: Number(process.env.BENCH_SLOW_SECONDS ?? 8) };

export interface SlowResult {
  direct: LoadResult;
  gateway: LoadResult;
  /** The share of a core the gateway used through its run (1 = a whole core: it could not keep up). */
  cpuShare: number;
  /** The gateway's resident memory through its run, in KiB: peak and median of readings every 100 ms. */
  rss: { peak: number; median: number };
}

/**
 * Runs the cell against a gateway of its own on the database of `env` (whose accounts are in
 * `keysFile`), with each account allowed enough requests in flight for its share of the streams.
 */
export async function slowStreams(
  env: Record<string, string>,
  keysFile: string,
  accounts: number,
  cores: { server: number; load: number },
  gatewayCmd = [BINARY],
): Promise<SlowResult> {
  const upstream = await startServer([process.execPath, new URL("./fake-upstream.ts", import.meta.url).pathname], {
    BENCH_STREAM_CHUNKS: String(SLOW.chunks),
    BENCH_CHUNK_INTERVAL_MS: String(SLOW.intervalMs),
  }, cores.load);
  // wrk gives each new request the next key in turn, but under load requests end out of order,
  // so an account can briefly hold more than its share of the streams; twice the share keeps
  // every account under its limit (a refused request would be a 429 and a failure here).
  const perAccount = 2 * Math.ceil(SLOW.streams / accounts);
  const gateway = await startServer([...gatewayCmd, "serve", "--port", "0"], {
    ...env,
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    MAX_CONCURRENT_REQUESTS: String(perAccount),
    // Set as docs/operations.md tells operators to: more provider requests in flight than
    // Bun's default 256, a heap sized for a small machine (JavaScriptCore otherwise sizes its
    // collections for all of this one's memory and lets finished streams' garbage pile up),
    // and the gateway's soft memory limit for a 256 MB budget (the relays ignore it).
    BUN_CONFIG_MAX_HTTP_REQUESTS: "8192",
    BUN_JSC_forceRAMSize: String(256 * 1024 * 1024),
    MEMORY_SOFT_LIMIT_MB: "200",
  }, cores.server);
  const load = (url: string) =>
    wrk(`${url}/v1/chat/completions`, SLOW.streams, SLOW.seconds, cores.load, { BENCH_KEYS: keysFile, BENCH_BODY: chatBody("stream"), BENCH_PATH: "/v1/chat/completions" });
  try {
    const direct = await load(upstream.url);
    const readings: number[] = [];
    const cpuBefore = cpuMicros(gateway.pid);
    const timer = setInterval(() => readings.push(rssKiB(gateway.pid)), 100);
    let result: LoadResult;
    try {
      result = await load(gateway.url);
    } finally {
      clearInterval(timer);
    }
    const cpuShare = (cpuMicros(gateway.pid) - cpuBefore) / (SLOW.seconds * 1_000_000);
    const sorted = [...readings].sort((a, b) => a - b);
    return { direct, gateway: result, cpuShare, rss: { peak: sorted.at(-1) ?? 0, median: sorted[sorted.length >> 1] ?? 0 } };
  } finally {
    await gateway.stop();
    await upstream.stop();
  }
}
