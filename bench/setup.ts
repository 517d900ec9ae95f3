// What the benchmark's scripts share: the compiled gateway, the request they send, funded
// accounts made through the CLI, and a fresh database for each run.
import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export type Dialect = "sqlite" | "postgres";
/**
 * Non-streaming; streams of 20 content chunks; streams of 200 (the fake upstream answers 320 max
 * tokens so); the 20-chunk stream asked through `/v1/messages` (Anthropic's API, translated);
 * a Responses API turn (translated, stored), first of its conversation or second
 * (`previous_response_id`, one body per key: `turnTwoBodies`); and a first turn not stored.
 */
export type Mode = "json" | "stream" | "stream200" | "messages" | "responses" | "responses2" | "unstored";

export const BINARY = new URL("../dist/gateway", import.meta.url).pathname;
export const PG_SERVER = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const BENCH_MODEL = "gpt-4.1-nano";
const request = (extra: object) =>
  JSON.stringify({ model: BENCH_MODEL, messages: [{ role: "user", content: "Say hello in twenty words." }], max_tokens: 32, ...extra });
// A translated model (Meta's, pointed at the fake upstream): the turn is a chat call upstream.
const RESPONSES_TURN = JSON.stringify({ model: "llama-4-scout", input: "Say hello in twenty words.", max_output_tokens: 32 });
const BODIES: Record<Mode, string> = {
  json: request({}),
  stream: request({ stream: true }),
  stream200: request({ stream: true, max_tokens: 320 }),
  messages: JSON.stringify({ model: BENCH_MODEL, max_tokens: 32, messages: [{ role: "user", content: "Say hello in twenty words." }], stream: true }),
  responses: RESPONSES_TURN,
  // The same turn, not kept: the door's own cost without the storing.
  unstored: JSON.stringify({ ...JSON.parse(RESPONSES_TURN), store: false }),
  // Each key's own: read from the file `turnTwoBodies` writes.
  responses2: RESPONSES_TURN,
};
export const chatBody = (mode: Mode) => BODIES[mode];
/** The gateway's path for a mode's request. */
export const pathOf = (mode: Mode) =>
  mode === "messages" ? "/v1/messages" : mode === "responses" || mode === "responses2" || mode === "unstored" ? "/v1/responses" : "/v1/chat/completions";

/**
 * A second turn for each key: its first turn sent once through the gateway at `url`, then a body
 * continuing it by `previous_response_id` (a stored response is its account's only), a line each
 * in the order of the keys file, for wrk-chat.lua's BENCH_BODIES.
 */
export async function turnTwoBodies(url: string, keys: string[]): Promise<string> {
  const bodies: string[] = [];
  for (const key of keys) {
    const res = await fetch(`${url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: RESPONSES_TURN });
    const { id } = (await res.json()) as { id: string };
    bodies.push(JSON.stringify({ ...JSON.parse(RESPONSES_TURN), input: "And now in ten.", previous_response_id: id }));
  }
  const file = join(mkdtempSync(join(tmpdir(), "gateway-bench-bodies-")), "bodies.txt");
  writeFileSync(file, `${bodies.join("\n")}\n`);
  return file;
}

const CLI_TIMEOUT_MS = 30_000;

/** Runs a compiled gateway's CLI (by default the working tree's) and returns what it printed. */
export async function gatewayCli(args: string[], env: Record<string, string>, binary = BINARY): Promise<string> {
  const proc = Bun.spawn([binary, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), CLI_TIMEOUT_MS);
  try {
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) throw new Error(`${binary} ${args.join(" ")} failed (exit ${code}${proc.signalCode ? `, ${proc.signalCode}` : ""}): ${(err || out).trim().slice(-2000)}`);
    return out;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `count` funded accounts with one key each, made through the CLI as an operator would; the
 * keys are also written to a file, one per line, for wrk's script to rotate through.
 */
export async function prepareAccounts(
  env: Record<string, string>,
  count: number,
  binary = BINARY,
): Promise<{ keys: string[]; emails: string[]; keysFile: string }> {
  await gatewayCli(["migrate"], env, binary);
  const emails = Array.from({ length: count }, (_, i) => `bench-${i}@bench.local`);
  const keys: string[] = [];
  for (const email of emails) {
    await gatewayCli(["users", "create", "--email", email, "--credits", "100000", "--json"], env, binary);
    keys.push(JSON.parse(await gatewayCli(["keys", "create", "--email", email, "--name", "bench", "--json"], env, binary)).key);
  }
  return { keys, emails, keysFile: writeKeysFile(keys) };
}

/** Keys in a file, one per line, for wrk's script to rotate through. */
function writeKeysFile(keys: string[]): string {
  const keysFile = join(mkdtempSync(join(tmpdir(), "gateway-bench-keys-")), "keys.txt");
  writeFileSync(keysFile, `${keys.join("\n")}\n`);
  return keysFile;
}

/** A second key for each of `emails`, allowed only the benchmark's chat model and only from loopback; the file of them. */
export async function restrictedKeysFile(env: Record<string, string>, emails: string[], binary = BINARY): Promise<string> {
  const keys: string[] = [];
  for (const email of emails) {
    const args = ["keys", "create", "--email", email, "--name", "bench-restricted", "--models", BENCH_MODEL, "--ips", "127.0.0.1/32", "--json"];
    keys.push(JSON.parse(await gatewayCli(args, env, binary)).key);
  }
  return writeKeysFile(keys);
}

export async function postgresReachable(): Promise<boolean> {
  try {
    const conn = new SQL(PG_SERVER, { max: 1, connectionTimeout: 2 });
    await conn.unsafe("SELECT 1");
    await conn.close();
    return true;
  } catch {
    return false;
  }
}

/** Runs one statement on PG_SERVER's own database (CREATE DATABASE, DROP DATABASE). */
async function pgAdmin(statement: string): Promise<void> {
  const conn = new SQL(PG_SERVER, { max: 1, connectionTimeout: 5 });
  try {
    await conn.unsafe(statement);
  } finally {
    await conn.close();
  }
}

/** PG_SERVER's URL for database `name`. */
const pgUrl = (name: string) => {
  const url = new URL(PG_SERVER);
  url.pathname = `/${name}`;
  return url.toString();
};

const dropPg = (name: string) => pgAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);

/** An empty database: a new SQLite file, or a Postgres database `name` created afresh. */
export async function freshDatabase(dialect: Dialect, name = `gw_bench_${process.pid}`): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === "sqlite") return { url: `sqlite:${join(mkdtempSync(join(tmpdir(), "gateway-bench-")), "bench.db")}`, drop: async () => {} };
  await dropPg(name);
  await pgAdmin(`CREATE DATABASE ${name}`);
  return { url: pgUrl(name), drop: () => dropPg(name) };
}

/**
 * A copy of `template` (a database freshDatabase made, then migrated and filled): a copied
 * SQLite file, or a Postgres database `name` created from it as a template. `drop` removes it.
 */
export async function cloneDatabase(
  template: { dialect: Dialect; url: string; /** Postgres: the template database's name. */ name?: string },
  name: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  if (template.dialect === "sqlite") {
    const from = template.url.slice("sqlite:".length);
    // Everything in the main file first, so that a copy of it alone is the whole database.
    const db = new Database(from);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
    const to = join(mkdtempSync(join(tmpdir(), "gateway-bench-clone-")), "bench.db");
    copyFileSync(from, to);
    return { url: `sqlite:${to}`, drop: async () => rmSync(dirname(to), { recursive: true, force: true }) };
  }
  await dropPg(name);
  await pgAdmin(`CREATE DATABASE ${name} TEMPLATE ${template.name}`);
  return { url: pgUrl(name), drop: () => dropPg(name) };
}
