import type { Command } from "commander";
import { loadConfig } from "../../config.ts";
import { backupSqlite } from "../../db/backup.ts";
import { CliError, printResult, type Output } from "../output.ts";

/** What a Postgres operator runs instead: the database's own tool, which the binary does not replace. */
const pgDumpCommand = (out: string) => `pg_dump --format=custom --file='${out.replaceAll("'", "'\\''")}' "$DATABASE_URL"`;

export function registerBackup(program: Command, output: () => Output): void {
  program
    .command("backup")
    .description("copy the SQLite database, consistently, while the server runs (Postgres: prints the pg_dump command)")
    .requiredOption("--out <file>", "where the copy goes; replaced atomically when it exists")
    .action(async (opts: { out: string }) => {
      const { databaseUrl } = loadConfig(process.env);
      if (!databaseUrl.startsWith("sqlite:")) {
        throw new CliError(`a PostgreSQL database is backed up with its own tool; run:\n  ${pgDumpCommand(opts.out)}`);
      }
      const path = databaseUrl.slice("sqlite:".length);
      if (path === ":memory:") throw new CliError("an in-memory database has nothing on disk to back up");
      const started = performance.now();
      let copied: { bytes: number };
      try {
        copied = backupSqlite(path, opts.out);
      } catch (error) {
        throw new CliError(`backup failed: ${(error as Error).message}`);
      }
      const seconds = (performance.now() - started) / 1000;
      printResult(output(), { out: opts.out, bytes: copied.bytes, seconds: Number(seconds.toFixed(3)) },
        `backed up ${path} to ${opts.out} (${copied.bytes} bytes in ${seconds.toFixed(1)} s)`);
    });
}
