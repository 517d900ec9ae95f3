// What the benchmark's scripts share: the compiled gateway, the request they send, funded
// accounts made through the CLI, and a fresh database for each run.
import { SQL } from "bun";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type Dialect = "sqlite" | "postgres";
/** Non-streaming; streams of 20 content chunks; streams of 200 (the fake upstream answers 320 max tokens so). */
export type Mode = "json" | "stream" | "stream200";

export const BINARY = new URL("../dist/gateway", import.meta.url).pathname;
export const PG_SERVER = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const request = (extra: object) =>
  JSON.stringify({ model: "gpt-4.1-nano", messages: [{ role: "user", content: "Say hello in twenty words." }], max_tokens: 32, ...extra });
const BODIES: Record<Mode, string> = {
  json: request({}),
  stream: request({ stream: true }),
  stream200: request({ stream: true, max_tokens: 320 }),
};
export const chatBody = (mode: Mode) => BODIES[mode];

/** Runs the compiled gateway's CLI and returns what it printed. */
export async function gatewayCli(args: string[], env: Record<string, string>): Promise<string> {
  const proc = Bun.spawn([BINARY, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`gateway ${args.join(" ")} failed: ${err}`);
  return out;
}

/**
 * `count` funded accounts with one key each, made through the CLI as an operator would; the
 * keys are also written to a file, one per line, for wrk's script to rotate through.
 */
export async function prepareAccounts(env: Record<string, string>, count: number): Promise<{ keys: string[]; emails: string[]; keysFile: string }> {
  await gatewayCli(["migrate"], env);
  const emails = Array.from({ length: count }, (_, i) => `bench-${i}@bench.local`);
  const keys: string[] = [];
  for (const email of emails) {
    await gatewayCli(["users", "create", "--email", email, "--credits", "100000", "--json"], env);
    keys.push(JSON.parse(await gatewayCli(["keys", "create", "--email", email, "--name", "bench", "--json"], env)).key);
  }
  const keysFile = join(mkdtempSync(join(tmpdir(), "gateway-bench-keys-")), "keys.txt");
  writeFileSync(keysFile, `${keys.join("\n")}\n`);
  return { keys, emails, keysFile };
}

/** An empty database: a new SQLite file, or a Postgres database `name` created afresh. */
export async function freshDatabase(dialect: Dialect, name = `gw_bench_${process.pid}`): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === "sqlite") return { url: `sqlite:${join(mkdtempSync(join(tmpdir(), "gateway-bench-")), "bench.db")}`, drop: async () => {} };
  const admin = async (statement: string) => {
    const conn = new SQL(PG_SERVER, { max: 1 });
    await conn.unsafe(statement);
    await conn.close();
  };
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_SERVER);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
