import { loadConfig, type Config, type ConfigOverrides } from "../config.ts";
import type { Store } from "../core/ports.ts";
import { openDatabase, type Database } from "../db/database.ts";
import { migrate } from "../db/migrate.ts";
import { secretsAtStart } from "../db/secrets-at-rest.ts";
import { createStore } from "../db/store/index.ts";
import { deploymentKey } from "../server/secret-key.ts";
import { CliError } from "./output.ts";

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
