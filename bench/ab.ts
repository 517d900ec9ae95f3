// `make bench-ab REV=<revision>`: another revision's compiled gateway (A) against the working
// tree's dist/gateway (B), interleaved A,B,A,B… on the same cells, same machine, same minute.
//   bun bench/ab.ts <rev> [--rounds 5] [--seconds 5] [--accounts 100] [--sqlite-only]
// Cells: JSON and SSE streams of 20 chunks at c=64, on SQLite and Postgres (skipped, saying so,
// when Postgres is not reachable). Each binary gets a fresh, migrated database per cell, funded
// accounts and keys made through its own CLI; per round: req/s and the gateway process's CPU
// (utime+stime from /proc) per request. Medians go to the terminal and to bench/AB.md.
//
// REV's binary is built in a temporary `git worktree` (npm ci, then REV's own `make build`, or
// its own bun when it has no such target) and cached
// under dist/ab/<full hash>/, so a second run against the same revision skips the build.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { ensureWrk, measure, median, pinUser, startServer, type Sample, type Server } from "./processes.ts";
import { BINARY, cloneDatabase, freshDatabase, PG_SERVER, postgresReachable, prepareAccounts, type Dialect, type Mode } from "./setup.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const OUT = join(ROOT, "bench", "AB.md");
// As make bench: the gateway under test on a core of its own; wrk, the upstream and Postgres on the other.
const SERVER_CORE = cpus().length > 1 ? 1 : 0;
const LOAD_CORE = 0;
const CONNECTIONS = 64;
/** Load before the measured rounds, per binary and cell: long enough for the JIT to settle. */
const WARM_UP_SECONDS = 15;
const MODES: Mode[] = ["json", "stream"];
const BUILD_TIMEOUT_MS = 10 * 60_000;

const log = (line: string) => process.stderr.write(`${line}\n`);

// ---- arguments ---------------------------------------------------------------------------

function parseArgs(argv: string[]) {
  const opts = { rev: "", rounds: 5, seconds: 5, accounts: 100, sqliteOnly: false };
  const positive = (name: string, raw: string | undefined) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} wants a whole number ≥ 1 (got "${raw}")`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--rounds") opts.rounds = positive("--rounds", value());
    else if (flag === "--seconds") opts.seconds = positive("--seconds", value());
    else if (flag === "--accounts") opts.accounts = positive("--accounts", value());
    else if (flag === "--sqlite-only") opts.sqliteOnly = true;
    else if (flag === "--rev") opts.rev = value() ?? "";
    else if (flag === "-h" || flag === "--help") {
      console.log("usage: bun bench/ab.ts <rev> [--rounds 5] [--seconds 5] [--accounts 100] [--sqlite-only]");
      process.exit(0);
    } else if (!flag.startsWith("-") && !opts.rev) opts.rev = flag;
    else throw new Error(`unknown argument "${arg}"`);
  }
  if (!opts.rev) throw new Error("usage: bun bench/ab.ts <rev> [--rounds 5] [--seconds 5] [--accounts 100] [--sqlite-only]  (make bench-ab REV=<rev>)");
  return opts;
}

// ---- processes with a deadline -----------------------------------------------------------

/** Runs `cmd` to completion within `timeoutMs`; throws with its stderr when it fails. */
async function run(cmd: string[], opts: { cwd?: string; env?: Record<string, string>; timeoutMs: number; quiet?: boolean }): Promise<string> {
  const proc = Bun.spawn(cmd, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.timeoutMs);
  try {
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) throw new Error(`${cmd.join(" ")} failed (exit ${code}${proc.signalCode ? `, ${proc.signalCode}` : ""}): ${(err || out).trim().slice(-2000)}`);
    return out;
  } finally {
    clearTimeout(timer);
  }
}

const git = (args: string[]) => run(["git", ...args], { cwd: ROOT, timeoutMs: 60_000 }).then((s) => s.trim());

// ---- REV's binary ------------------------------------------------------------------------

/** dist/ab/<hash>/gateway, built once per commit in a throw-away worktree. */
async function revisionBinary(hash: string): Promise<string> {
  const dir = join(ROOT, "dist", "ab", hash);
  const binary = join(dir, "gateway");
  if (existsSync(binary)) {
    log(`A: cached binary ${binary}`);
    return binary;
  }
  const tmp = mkdtempSync(join(tmpdir(), "gateway-ab-"));
  const worktree = join(tmp, "tree");
  log(`A: building ${hash.slice(0, 12)} in a worktree at ${worktree}…`);
  try {
    await git(["worktree", "add", "--detach", worktree, hash]);
    log("A: npm ci…");
    await run(["npm", "ci", "--no-audit", "--no-fund"], { cwd: worktree, timeoutMs: BUILD_TIMEOUT_MS });
    let built = join(tmp, `gateway-${hash.slice(0, 12)}`);
    // The revision's own `make build` when it has one: its flags, and whatever it generates
    // before compiling (files that a later revision may no longer commit). Else bun directly.
    const makefile = join(worktree, "Makefile");
    const hasBuild = existsSync(makefile) && /^build:/m.test(await Bun.file(makefile).text()) && /^dist\/gateway:/m.test(await Bun.file(makefile).text());
    if (hasBuild) {
      writeFileSync(join(worktree, "node_modules", ".installed"), ""); // npm ci has just run: make need not run it again
      log("A: make build (the revision's own)…");
      // Not this make's command-line variables (REV=…, ROUNDS=…), which MAKEFLAGS would pass on.
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !["MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"].includes(k))) as Record<string, string>;
      const proc = Bun.spawn(["make", "-C", worktree, "build"], { env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
      const timer = setTimeout(() => proc.kill("SIGKILL"), BUILD_TIMEOUT_MS);
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      clearTimeout(timer);
      if (code !== 0) throw new Error(`make build at ${hash.slice(0, 12)} failed (exit ${code}): ${(err || out).trim().slice(-2000)}`);
      built = join(worktree, "dist", "gateway");
    } else {
      log("A: bun build --compile --minify --sourcemap (the revision's own bun)…");
      await run([join(worktree, "node_modules/.bin/bun"), "build", "--compile", "--minify", "--sourcemap", "src/main.ts", "--outfile", built], {
        cwd: worktree,
        timeoutMs: BUILD_TIMEOUT_MS,
      });
    }
    mkdirSync(dir, { recursive: true });
    // Into place last, so an interrupted build is never taken for a cached one.
    if (existsSync(`${built}.map`)) copyFileSync(`${built}.map`, `${binary}.map`);
    copyFileSync(built, `${binary}.tmp`);
    renameSync(`${binary}.tmp`, binary);
    return binary;
  } finally {
    await git(["worktree", "remove", "--force", worktree]).catch((e) => log(`could not remove the worktree: ${e.message}`));
    await git(["worktree", "prune"]).catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---- databases ---------------------------------------------------------------------------

/** A database migrated and filled by one binary's CLI, which each cell's database copies (cloneDatabase). */
interface Template {
  dialect: Dialect;
  url: string;
  /** Postgres: the template database's name. */
  name?: string;
  keysFile: string;
}

const chatUrl = (server: Server) => `${server.url}/v1/chat/completions`;
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

type Side = "A" | "B";

interface Row {
  cell: string;
  a: Sample[];
  b: Sample[];
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  await ensureWrk();
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: make build`);

  const revHash = await git(["rev-parse", "--verify", `${opts.rev}^{commit}`]).catch(() => {
    throw new Error(`"${opts.rev}" is not a commit of this repository`);
  });
  const headHash = await git(["rev-parse", "HEAD"]);
  const dirty = (await git(["status", "--porcelain", "--untracked-files=no"])) !== "";
  const treeLabel = `${headHash.slice(0, 9)}${dirty ? "+changes" : ""}`;
  const revLabel = revHash.slice(0, 9);
  const binaries: Record<Side, string> = { A: await revisionBinary(revHash), B: BINARY };
  log(`A = ${opts.rev} (${revHash}) ${binaries.A}`);
  log(`B = working tree (${headHash}${dirty ? " with uncommitted changes" : ""}) ${binaries.B}`);

  const dialects: Dialect[] = ["sqlite"];
  if (opts.sqliteOnly) log("--sqlite-only: skipping the Postgres cells");
  else if (await postgresReachable()) dialects.push("postgres");
  else log(`Postgres at ${PG_SERVER} is not reachable: skipping the Postgres cells (set BENCH_POSTGRES_URL to point elsewhere)`);

  const upstream = await startServer([process.execPath, new URL("./fake-upstream.ts", import.meta.url).pathname], {}, LOAD_CORE);
  const baseEnv = { OPENAI_BASE_URL: `${upstream.url}/v1`, OPENAI_API_KEY: "bench", SWEEP_INTERVAL_MS: "30000" };
  const prefix = `gw_ab_${process.pid}`;
  const cleanups: (() => Promise<void>)[] = [];
  const rows: Row[] = [];
  let postgresPinned = false;

  try {
    for (const dialect of dialects) {
      // One template per binary: migrated and set up by that binary's own CLI; each cell gets a copy.
      log(`[${dialect}] migrating and making ${opts.accounts} accounts through each binary's CLI…`);
      const templates = {} as Record<Side, Template>;
      await Promise.all(
        (["A", "B"] as Side[]).map(async (side) => {
          const name = `${prefix}_${side.toLowerCase()}_template`;
          const database = await freshDatabase(dialect, name);
          cleanups.push(database.drop);
          if (dialect === "sqlite") cleanups.push(async () => rmSync(dirname(database.url.slice("sqlite:".length)), { recursive: true, force: true }));
          const { keysFile } = await prepareAccounts({ ...baseEnv, DATABASE_URL: database.url }, opts.accounts, binaries[side]);
          cleanups.push(async () => rmSync(dirname(keysFile), { recursive: true, force: true }));
          templates[side] = { dialect, url: database.url, name, keysFile };
        }),
      );
      if (dialect === "postgres") postgresPinned = pinUser("postgres", String(LOAD_CORE)) || postgresPinned;

      for (const mode of MODES) {
        const cell = `${dialect} ${mode === "json" ? "json" : "sse 20 chunks"} c=${CONNECTIONS}`;
        const row: Row = { cell, a: [], b: [] };
        const servers = {} as Record<Side, Server>;
        const drops: (() => Promise<void>)[] = [];
        try {
          for (const side of ["A", "B"] as Side[]) {
            const database = await cloneDatabase(templates[side], `${prefix}_${side.toLowerCase()}_${mode}`);
            drops.push(database.drop);
            servers[side] = await startServer([binaries[side], "serve", "--port", "0"], { ...baseEnv, DATABASE_URL: database.url }, SERVER_CORE);
          }
          // Warm both under the cell's own load, so that no measured round pays for compilation or
          // connection set-up: JavaScriptCore's JIT was still compiling 10–20 s into a run at c=64
          // (bench/cell.ts's split by thread), more so for a binary with more code on the path.
          for (const side of ["A", "B"] as Side[]) await measure(servers[side], chatUrl(servers[side]), mode, CONNECTIONS, templates[side].keysFile, WARM_UP_SECONDS, LOAD_CORE);
          for (let round = 1; round <= opts.rounds; round++) {
            for (const side of ["A", "B"] as Side[]) {
              const sample = await measure(servers[side], chatUrl(servers[side]), mode, CONNECTIONS, templates[side].keysFile, opts.seconds, LOAD_CORE);
              (side === "A" ? row.a : row.b).push(sample);
              log(
                `[${cell}] round ${round}/${opts.rounds} ${side === "A" ? `A ${revLabel}` : `B ${treeLabel}`}: ${fmt(sample.rps)} req/s, ${fmt(sample.cpuPerRequestUs, 1)} µs CPU/req, p50 ${fmt(sample.p50, 3)} ms${sample.failures ? `, ${sample.failures} FAILED` : ""}`,
              );
            }
          }
        } finally {
          for (const server of Object.values(servers)) await server.stop();
          for (const drop of drops) await drop().catch((e) => log(`could not drop a database: ${e.message}`));
        }
        rows.push(row);
      }
    }
  } finally {
    if (postgresPinned) pinUser("postgres", `0-${cpus().length - 1}`);
    await upstream.stop();
    for (const cleanup of cleanups) await cleanup().catch((e) => log(`could not drop a database: ${e.message}`));
  }

  // ---- the table ----
  const med = (samples: Sample[], field: keyof Sample) => median(samples.map((s) => s[field]));
  const failures = (samples: Sample[]) => samples.reduce((n, s) => n + s.failures, 0);
  // The host's speed drifts within a run; a round's A and B, measured back to back, share its
  // conditions, so the median of the rounds' own ratios is the steadier comparison.
  const pairedRatio = (r: Row) => median(r.a.map((a, i) => (r.b[i] as Sample).cpuPerRequestUs / a.cpuPerRequestUs));
  const header = ["cell", `A ${revLabel} µs/req`, `B ${treeLabel} µs/req`, "B/A µs", "B/A µs by round", `A req/s`, `B req/s`, "B/A req/s", "failed A/B"];
  const lines = rows.map((r) => {
    const [ua, ub, ra, rb] = [med(r.a, "cpuPerRequestUs"), med(r.b, "cpuPerRequestUs"), med(r.a, "rps"), med(r.b, "rps")];
    return [r.cell, fmt(ua, 1), fmt(ub, 1), `${fmt(ub / ua, 3)}×`, `${fmt(pairedRatio(r), 3)}×`, fmt(ra), fmt(rb), `${fmt(rb / ra, 3)}×`, `${failures(r.a)}/${failures(r.b)}`];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const pad = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join("  ");
  console.log([pad(header), ...lines.map(pad)].join("\n"));

  const version = (cmd: string[]) => Bun.spawnSync(cmd).stdout.toString().trim().split("\n")[0];
  const markdown = [
    "# A/B: another revision against the working tree",
    "",
    `Generated by \`make bench-ab REV=${opts.rev}\` on ${new Date().toISOString()}.`,
    "",
    `- A: \`${opts.rev}\` = ${revHash}, built from a worktree of that commit with its own dependencies and bun (\`bun build --compile --minify --sourcemap\`), \`${binaries.A.replace(`${ROOT}/`, "")}\``,
    `- B: the working tree, HEAD ${headHash}${dirty ? " with uncommitted changes" : ""}, \`dist/gateway\``,
    `- ${opts.rounds} rounds of ${opts.seconds} s per cell, A then B in each round, after ${WARM_UP_SECONDS} s of the same load on each; medians shown. Each binary has a fresh database per cell, migrated and given ${opts.accounts} funded accounts with a key each by its own CLI; wrk rotates through the keys.${dialects.includes("postgres") ? "" : " Postgres was not measured (not reachable, or --sqlite-only)."}`,
    `- µs/req: the gateway process's user+system CPU time from /proc over the round ÷ requests served. B/A µs < 1: the working tree spends less CPU per request than REV (of the medians; "by round": the median of each round's B ÷ A); B/A req/s > 1: it serves more requests per second.`,
    `- Machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB; the gateway pinned to core ${SERVER_CORE}, wrk, the fake upstream and PostgreSQL to core ${LOAD_CORE}; bun ${Bun.version} (runner), ${version(["wrk", "--version"]) ?? "wrk"}`,
    "",
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...lines.map((l) => `| ${l.join(" | ")} |`),
    "",
  ].join("\n");
  writeFileSync(OUT, markdown);
  log(`written to ${OUT}`);
}

try {
  await main();
} catch (error) {
  log(`bench-ab: ${(error as Error).message}`);
  process.exit(1);
}
