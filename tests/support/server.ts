import { afterAll, beforeAll } from "bun:test";
import { loadConfig, type Config } from "../../src/config.ts";
import type { Store } from "../../src/core/ports.ts";
import { openDatabase, type Database } from "../../src/db/database.ts";
import type { Dialect } from "../../src/db/migration-files.ts";
import { migrate } from "../../src/db/migrate.ts";
import { secretsAtStart } from "../../src/db/secrets-at-rest.ts";
import { createStore } from "../../src/db/store/index.ts";
import { startServer } from "../../src/server/app.ts";
import type { AppDeps } from "../../src/server/deps.ts";
import { silentLogger, type Logger } from "../../src/server/log.ts";
import { deploymentKey } from "../../src/server/secret-key.ts";
import { createTestDatabase, type TestDatabase } from "./databases.ts";

/** The key Postgres test gateways share when a test names none (a SQLite one keeps its own file beside the database). */
export const TEST_SECRET_KEY = "5ec7e7".padEnd(64, "0");

/** The key settings a test gateway runs with: a fixed key on Postgres unless the test sets one, or none with `SECRET_KEY: ""`. */
function keySettings(dialect: Dialect, env: Record<string, string>): Record<string, string> {
  if (env.SECRET_KEY === "") return {};
  if (env.SECRET_KEY !== undefined || env.SECRET_KEY_FILE !== undefined || dialect === "sqlite") return {};
  return { SECRET_KEY: TEST_SECRET_KEY };
}

export interface TestGateway {
  /** Base URL including BASE_PATH, e.g. http://127.0.0.1:41234 */
  url: string;
  config: Config;
  db: Database;
  store: Store;
  testDb: TestDatabase;
  stop(): Promise<void>;
}

/**
 * Starts the real server in this process on a free loopback port over a fresh database, or
 * over `shared` as a further instance of an existing gateway (it then leaves the database be).
 * Its log goes to `log` (nowhere unless given); `extra` replaces what a test controls (how
 * webhook receivers' names resolve).
 */
export async function startGateway(
  dialect: Dialect,
  env: Record<string, string> = {},
  shared?: TestDatabase,
  log: Logger = silentLogger,
  extra: Pick<AppDeps, "resolveHost"> = {},
): Promise<TestGateway> {
  const testDb = shared ?? (await createTestDatabase(dialect));
  // Test files sign many users up from 127.0.0.1; the per-IP sign-up limit is tested where it is set back.
  const settings = { ...keySettings(dialect, env), ...env };
  if (settings.SECRET_KEY === "") delete settings.SECRET_KEY;
  const config = loadConfig({
    PORT: "0", HOST: "127.0.0.1", DATABASE_URL: testDb.url, AUTH_PER_IP_PER_HOUR: "100000",
    ...(process.env.DATABASE_PREPARED_STATEMENTS ? { DATABASE_PREPARED_STATEMENTS: process.env.DATABASE_PREPARED_STATEMENTS } : {}),
    ...settings,
  });
  const db = openDatabase(config.databaseUrl, { preparedStatements: config.databasePreparedStatements });
  await migrate(db);
  const prepared = await secretsAtStart(db, deploymentKey(config));
  if ("refused" in prepared) {
    await db.close();
    throw new Error(prepared.refused);
  }
  const store = createStore(db, prepared.secrets);
  const server = startServer({ config, store, log, now: Date.now, ...extra });
  return {
    url: server.url,
    config,
    db,
    store,
    testDb,
    stop: async () => {
      await server.stop();
      await db.close();
      if (!shared) await testDb.drop();
    },
  };
}

/** Starts a gateway before the suite's tests and stops it after them; read it through the getter. */
export function useGateway(dialect: Dialect, env: Record<string, string> = {}, log?: Logger): () => TestGateway {
  let gateway: TestGateway | undefined;
  beforeAll(async () => {
    gateway = await startGateway(dialect, env, undefined, log);
  });
  afterAll(async () => {
    await gateway?.stop();
  });
  return () => {
    if (!gateway) throw new Error("the gateway has not started");
    return gateway;
  };
}
