// Runs the compiled `dist/gateway` (built by `make build`, which `make test` depends on).
import { existsSync } from "node:fs";
import { TEST_SECRET_KEY } from "./server.ts";

export const BINARY = new URL("../../dist/gateway", import.meta.url).pathname;

function requireBinary(): void {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`make build\` (make test does it)`);
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one CLI command to completion. */
export async function runGateway(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  requireBinary();
  const proc = Bun.spawn([BINARY, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Runs one CLI command with --json and answers its parsed output; a non-zero exit throws with its stderr. */
export async function runGatewayJson(args: string[], env: Record<string, string> = {}): Promise<any> {
  const run = await runGateway([...args, "--json"], env);
  if (run.code !== 0) throw new Error(`gateway ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

export interface ServeProcess {
  url: string;
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  /** Log lines written so far. */
  logs: string[];
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** A Postgres deployment needs a key to store TOTP and webhook secrets: the tests' own, unless the test sets one ("" for none). */
const keyFor = (env: Record<string, string>): Record<string, string> =>
  env.DATABASE_URL?.startsWith("postgres") && env.SECRET_KEY === undefined && env.SECRET_KEY_FILE === undefined ? { SECRET_KEY: TEST_SECRET_KEY } : {};

/** Starts `gateway serve` on a free port and resolves once it logs where it listens. */
export async function spawnServe(env: Record<string, string>, extraArgs: string[] = []): Promise<ServeProcess> {
  requireBinary();
  const proc = Bun.spawn([BINARY, "serve", "--port", "0", ...extraArgs], {
    env: { ...process.env, ...keyFor(env), ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const logs: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const decoder = new TextDecoder();
    let buffered = "";
    (async () => {
      for await (const chunk of proc.stderr) {
        buffered += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          logs.push(line);
          try {
            const entry = JSON.parse(line);
            if (entry.message === "listening") resolve(entry.url);
          } catch {
            // not a JSON line; kept in logs
          }
        }
      }
      reject(new Error(`gateway serve exited before listening:\n${logs.join("\n")}`));
    })();
  });
  return {
    url,
    proc,
    logs,
    stop: async (signal = "SIGTERM") => {
      proc.kill(signal);
      return proc.exited;
    },
  };
}
