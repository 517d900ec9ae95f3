// Starting, pinning and measuring the processes of a benchmark run, all on 127.0.0.1.
import { appendFileSync, readFileSync } from "node:fs";
import { chatBody, type Mode } from "./setup.ts";

export interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const hasTaskset = Bun.which("taskset") !== null;

/** Runs `cmd` pinned to `core` (when taskset exists) and resolves once it says where it listens. */
export async function startServer(cmd: string[], env: Record<string, string>, core: number): Promise<Server> {
  const proc = Bun.spawn(hasTaskset ? ["taskset", "-c", String(core), ...cmd] : cmd, {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd.join(" ")} did not start within 15 s`)), 15_000);
    // Once the server has said where it listens, its output (a log line per request) is only
    // drained: parsing it would take CPU from the cores being measured.
    // BENCH_SERVER_STDERR=<file> keeps each server's standard error there (what the JIT reports
    // under BUN_JSC_reportCompileTimes=true, say).
    let listening = false;
    const keepTo = process.env.BENCH_SERVER_STDERR;
    const watch = async (stream: ReadableStream<Uint8Array>, keep = false) => {
      let buffered = "";
      for await (const chunk of stream) {
        if (keep && keepTo) appendFileSync(keepTo, chunk);
        if (listening) continue;
        buffered += new TextDecoder().decode(chunk);
        for (const line of buffered.split("\n")) {
          try {
            const entry = JSON.parse(line);
            const at = entry.listening ?? (entry.message === "listening" ? entry.url : undefined);
            if (at) {
              listening = true;
              clearTimeout(timer);
              resolve(at);
            }
          } catch {
            // partial or non-JSON line
          }
        }
        buffered = buffered.slice(buffered.lastIndexOf("\n") + 1);
      }
    };
    void watch(proc.stdout);
    void watch(proc.stderr, true);
    void proc.exited.then((code) => reject(new Error(`${cmd.join(" ")} exited with ${code} before listening`)));
  });
  return {
    url,
    pid: proc.pid,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/**
 * Pins every process of `user` (a database server, say) to `cores`, threads included; new
 * backends inherit the pinning from their parent. Returns false when taskset is missing.
 */
export function pinUser(user: string, cores: string): boolean {
  if (!hasTaskset) return false;
  const pids = Bun.spawnSync(["pgrep", "-u", user]).stdout.toString().split("\n").filter(Boolean);
  for (const pid of pids) Bun.spawnSync(["taskset", "-a", "-cp", cores, pid], { stdout: "ignore", stderr: "ignore" });
  return pids.length > 0;
}

/** Pins this process, threads included, to `cores` (a client measuring from the load generator's core). */
export function pinSelf(cores: string): void {
  if (hasTaskset) Bun.spawnSync(["taskset", "-a", "-cp", cores, String(process.pid)], { stdout: "ignore", stderr: "ignore" });
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time the process has used so far (user + system), in microseconds. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  return (ticks * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}

/** Resident set size in KiB. */
export function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  /** Responses other than 2xx, and socket errors: a healthy run has none. */
  failures: number;
}

const toMs = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? Number.NaN);

/** Runs wrk against `url` for `seconds` with `connections` connections, pinned to `core`. */
export async function wrk(url: string, connections: number, seconds: number, core: number, env: Record<string, string>): Promise<LoadResult> {
  const script = new URL("./wrk-chat.lua", import.meta.url).pathname;
  const args = ["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "--timeout", "10s", "-s", script, url];
  const proc = Bun.spawn(hasTaskset ? ["taskset", "-c", String(core), ...args] : args, {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) throw new Error(`wrk failed: ${err || out}`);
  const latency = (p: string) => {
    const m = out.match(new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)\\b`));
    return m ? toMs(m[1] as string, m[2] as string) : Number.NaN;
  };
  const requests = Number(out.match(/(\d+) requests in/)?.[1] ?? 0);
  const non2xx = Number(out.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0);
  const socket = out.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requests,
    rps: Number(out.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0),
    p50: latency("50"),
    p90: latency("90"),
    p99: latency("99"),
    failures: non2xx + socketErrors,
  };
}

/** Installs wrk from Debian's packages when it is not on the PATH. */
export async function ensureWrk(): Promise<void> {
  if (Bun.which("wrk")) return;
  process.stderr.write("installing wrk from Debian's packages…\n");
  const run = (cmd: string[]) => Bun.spawnSync(cmd, { stdout: "ignore", stderr: "inherit" }).exitCode;
  if (run(["apt-get", "install", "-y", "wrk"]) !== 0 && (run(["apt-get", "update"]), run(["apt-get", "install", "-y", "wrk"])) !== 0) {
    throw new Error("wrk is required: apt-get install wrk");
  }
}

export interface Sample extends LoadResult {
  /** The server process's user+system CPU time over the load ÷ requests served, in µs. */
  cpuPerRequestUs: number;
}

/** wrk with `mode`'s chat request at `url` (served by `server`), and the CPU `server` spent per request. */
export async function measure(
  server: Server, url: string, mode: Mode, connections: number, keysFile: string, seconds: number, core: number, bodiesFile?: string,
): Promise<Sample> {
  const before = cpuMicros(server.pid);
  const result = await wrk(url, connections, seconds, core, {
    BENCH_KEYS: keysFile,
    BENCH_BODY: chatBody(mode),
    BENCH_PATH: new URL(url).pathname,
    ...(bodiesFile ? { BENCH_BODIES: bodiesFile } : {}),
  });
  const cpu = cpuMicros(server.pid) - before;
  return { ...result, cpuPerRequestUs: result.requests > 0 ? cpu / result.requests : Number.NaN };
}

/** Median time to the first byte of the response body, in ms, over `count` sequential requests. */
export async function timeToFirstByte(url: string, keys: string[], body: string, count: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${keys[i % keys.length]}` },
      body,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    samples.push(performance.now() - started);
    while (!(await reader.read()).done) {
      // drain
    }
  }
  return median(samples);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
