import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { loadConfig, type Config, type ConfigOverrides } from "../config.ts";
import type { Store } from "../core/ports.ts";
import { openDatabase, type Database } from "../db/database.ts";
import { migrate } from "../db/migrate.ts";
import { secretsAtStart } from "../db/secrets-at-rest.ts";
import { createStore } from "../db/store/index.ts";
import { deploymentKey } from "../server/secret-key.ts";
import { CliError } from "./output.ts";

/** The name /etc/passwd gives this process's uid, if it has one. */
function passwdName(): string | undefined {
  try {
    const uid = String(process.getuid?.());
    return readFileSync("/etc/passwd", "utf8").split("\n").map((line) => line.split(":")).find((entry) => entry[2] === uid)?.[0];
  } catch {
    return undefined;
  }
}

/**
 * Who acts, as every audit event of the CLI names it: `cli`, with the operating-system user
 * that ran the command: os.userInfo(), else $USER or $LOGNAME, else the uid's entry in
 * /etc/passwd. (Bun's userInfo() answers $USER, or "unknown" without it.)
 */
export function cliActor(env: Record<string, string | undefined> = process.env): string {
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    // No password entry for this uid (a container's arbitrary uid): the fallbacks below.
  }
  if (name === "unknown") name = undefined;
  name ||= env.USER || env.LOGNAME || passwdName() || `uid ${process.getuid?.() ?? "unknown"}`;
  return `cli (OS user ${name})`;
}

interface CliContext {
  config: Config;
  db: Database;
  store: Store;
}

/** Opens the configured database, brings its schema up to date and hands `fn` the store. */
export async function withStore<T>(overrides: ConfigOverrides, fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env, overrides);
  const db = openDatabase(config.databaseUrl, { preparedStatements: config.databasePreparedStatements });
  try {
    await migrate(db);
    const prepared = await secretsAtStart(db, deploymentKey(config));
    if ("refused" in prepared) throw new CliError(prepared.refused, 2);
    return await fn({ config, db, store: createStore(db, prepared.secrets) });
  } finally {
    await db.close();
  }
}
