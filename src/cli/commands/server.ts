import type { Command } from "commander";
import { BUILD_INFO } from "../../build-info.ts";
import { loadConfig, type Config } from "../../config.ts";
import { openDatabase, type Database } from "../../db/database.ts";
import { migrate } from "../../db/migrate.ts";
import { secretsAtStart } from "../../db/secrets-at-rest.ts";
import { createStore } from "../../db/store/index.ts";
import { startServer, type RunningServer } from "../../server/app.ts";
import { createLogger } from "../../server/log.ts";
import { deploymentKey } from "../../server/secret-key.ts";
import { Metrics } from "../../server/observability/metrics.ts";
import { CliError, printResult, type Output } from "../output.ts";

const portOption = (raw: string): number => {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be 0 to 65535 (got "${raw}")`);
  return port;
};

/**
 * Starts the server; a port that is taken (by another gateway, or by anything) is told in one
 * line naming the address, after the database is closed, rather than as a stack trace.
 */
async function listenOrExplain(start: () => RunningServer, config: Config, db: Database): Promise<RunningServer> {
  try {
    return start();
  } catch (error) {
    await db.close();
    if ((error as { code?: unknown }).code !== "EADDRINUSE") throw error;
    // With REUSE_PORT=on the bind fails only when the holder does not set SO_REUSEPORT itself.
    throw new CliError(`port ${config.port} on ${config.host} is already in use (another gateway?); stop it or choose another PORT`);
  }
}

// How long, at most, SQLite commits wait for the checkpointer to sync them to disk, beside the
// serving thread: what a power loss can take back (synchronous = NORMAL syncs at checkpoints).
const WAL_SYNC_MAX_MS = 1000;

export function registerServer(program: Command, output: () => Output): void {
  program
    .command("serve")
    .description("apply migrations, then serve the HTTP API")
    .option("--port <n>", "port to listen on (env PORT, default 3000)", portOption)
    .option("--host <h>", "address to listen on (env HOST, default 127.0.0.1)")
    .action(async (opts: { port?: number; host?: string }) => {
      const config = loadConfig(process.env, { port: opts.port, host: opts.host });
      // JSON lines for a log collector; readable lines for a person watching a terminal.
      const secrets = Object.values(config.providers).flatMap((p) => p.apiKeys);
      const log = createLogger({ level: config.logLevel, pretty: process.stderr.isTTY === true, secrets });
      const metrics = new Metrics();
      const db = openDatabase(config.databaseUrl, {
        observe: metrics.observeDatabase,
        preparedStatements: config.databasePreparedStatements,
        checkpoints: {
          maxIdleMs: WAL_SYNC_MAX_MS,
          onFailure: (reason) => log.warn("the WAL checkpointer failed: requests run SQLite's own checkpoints again", { reason }),
        },
      });
      const applied = await migrate(db);
      if (applied.length > 0) log.info("applied migrations", { migrations: applied });
      const prepared = await secretsAtStart(db, deploymentKey(config));
      if ("refused" in prepared) {
        await db.close();
        throw new CliError(prepared.refused, 2);
      }
      if (prepared.sealedNow > 0) log.info("encrypted stored secrets with the deployment's key", { secrets: prepared.sealedNow });
      const store = createStore(db, prepared.secrets);
      const server = await listenOrExplain(() => startServer({ config, store, log, now: Date.now, metrics }), config, db);
      log.info("listening", { url: server.url, database: config.databaseUrl.split(":")[0], ...BUILD_INFO });
      // SIGTERM or SIGINT: stop accepting, let requests in flight finish within the grace period,
      // then close the database (after their charges and releases are written) and exit 0.
      // A second signal ends the grace period at once.
      let stopping = false;
      const shutdown = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info("shutting down", { signal, graceMs: config.shutdownGraceMs });
        const graceOver = new Promise<void>((resolve) => {
          setTimeout(resolve, config.shutdownGraceMs).unref();
          for (const again of ["SIGTERM", "SIGINT"] as const) process.once(again, () => resolve());
        });
        await server.stop(graceOver);
        await db.close();
        log.info("stopped");
        process.exit(0);
      };
      process.once("SIGTERM", () => void shutdown("SIGTERM"));
      process.once("SIGINT", () => void shutdown("SIGINT"));
    });

  program
    .command("migrate")
    .description("apply pending database migrations and exit")
    .action(async () => {
      // Not withStore: it migrates before its callback runs, and this command reports what it applied.
      const config = loadConfig(process.env);
      const db = openDatabase(config.databaseUrl, { preparedStatements: config.databasePreparedStatements });
      try {
        const applied = await migrate(db);
        const sentence = applied.length === 0
          ? "database is up to date: no migrations to apply"
          : `applied ${applied.length} migration${applied.length === 1 ? "" : "s"}:\n${applied.map((tag) => `  ${tag}`).join("\n")}`;
        printResult(output(), { migrated: true, applied }, sentence);
      } finally {
        await db.close();
      }
    });
}
