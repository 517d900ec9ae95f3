import type { Command } from "commander";
import { loadConfig } from "../../config.ts";
import { backupRefusal, backupSqlite, restoreSqlite } from "../../db/backup.ts";
import { CliError, printResult, type Output } from "../output.ts";

const quoted = (path: string) => `'${path.replaceAll("'", "'\\''")}'`;

/** What a Postgres operator runs instead: the database's own tools, which the binary does not replace. */
const pgDumpCommand = (out: string) => `pg_dump --format=custom --file=${quoted(out)} "$DATABASE_URL"`;
const pgRestoreCommand = (file: string) => `pg_restore --no-owner --dbname="$DATABASE_URL" ${quoted(file)}`;

/** The configured SQLite database's path; Postgres and in-memory databases are refused with `postgres`'s advice. */
function sqlitePath(postgres: string, verb: string): string {
  const { databaseUrl } = loadConfig(process.env);
  if (!databaseUrl.startsWith("sqlite:")) throw new CliError(postgres);
  const path = databaseUrl.slice("sqlite:".length);
  if (path === ":memory:") throw new CliError(`an in-memory database has nothing on disk to ${verb}`);
  return path;
}

export function registerBackup(program: Command, output: () => Output): void {
  program
    .command("backup")
    .description("copy the SQLite database, consistently, while the server runs (Postgres: prints the pg_dump command)")
    .requiredOption("--out <file>", "where the copy goes; a new file unless --force")
    .option("--force", "replace --out when it exists (never the live database)")
    .action(async (opts: { out: string; force?: boolean }) => {
      const path = sqlitePath(`a PostgreSQL database is backed up with its own tool; run:\n  ${pgDumpCommand(opts.out)}`, "back up");
      const refusal = backupRefusal(path, opts.out, opts.force === true);
      if (refusal !== null) throw new CliError(refusal);
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

  program
    .command("restore")
    .description("put a SQLite backup in place of the database, which no process may be serving (Postgres: prints the pg_restore command)")
    .argument("<file>", "a backup made by gateway backup")
    .action(async (file: string) => {
      const path = sqlitePath(
        `a PostgreSQL database is restored with its own tool, into an empty database; run:\n  ${pgRestoreCommand(file)}`,
        "restore",
      );
      try {
        restoreSqlite(file, path);
      } catch (error) {
        throw new CliError((error as Error).message);
      }
      printResult(output(), { restored: file, to: path }, `restored ${file} to ${path}; start the gateway`);
    });
}
