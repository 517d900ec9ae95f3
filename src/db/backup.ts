// `gateway backup` and `gateway restore` for SQLite: a consistent copy of a live database taken
// beside a running server, and a copy put back in place of a database nothing is serving.
import { Database as SqliteClient } from "bun:sqlite";
import { closeSync, existsSync, fchmodSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** The files SQLite keeps for the database at `path`: writing over any of them corrupts it. */
const databaseFiles = (path: string) => [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];

/**
 * Whether `a` and `b` name the same file: the same path once symlinks are resolved, or the same
 * inode (a hard link, or another spelling of the path that realpath would not catch on its own).
 */
export function sameFile(a: string, b: string): boolean {
  if (!existsSync(a) || !existsSync(b)) return false;
  if (realpathSync(a) === realpathSync(b)) return true;
  const [x, y] = [statSync(a), statSync(b)];
  return x.dev === y.dev && x.ino === y.ino;
}

/** Why `out` may not receive a backup of `source`, or null when it may. */
export function backupRefusal(source: string, out: string, force: boolean): string | null {
  // Checked even with --force: a backup renamed over the live database (or its WAL) replaces it
  // under the running server, which goes on writing to the unlinked file.
  if (databaseFiles(source).some((file) => sameFile(out, file))) return `${out} is the live database's own file; back up elsewhere`;
  if (existsSync(out) && !force) return `${out} already exists; --force replaces it`;
  return null;
}

/**
 * Copies the SQLite database at `source` to `out` with `VACUUM INTO`, which reads one snapshot
 * (writers go on meanwhile, in WAL mode) and writes a compact copy without the free pages. The
 * copy is written beside `out` and renamed over it once complete and on disk, so `out` is
 * always either the previous backup or the new one, never half of one.
 */
export function backupSqlite(source: string, out: string): { bytes: number } {
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  const target = resolve(out);
  copyInto(source, `${target}.partial-${process.pid}`, target);
  return { bytes: Bun.file(target).size };
}

/** `VACUUM INTO` a file readable by its owner only beside `target`, then renamed over it durably. */
function copyInto(source: string, partial: string, target: string): void {
  rmSync(partial, { force: true });
  // VACUUM INTO writes into an empty file it finds: made here, mode 0600, since a backup holds
  // everything the database does (password hashes, e-mails, the ledger).
  const fd = openSync(partial, "wx", 0o600);
  try {
    fchmodSync(fd, 0o600); // whatever the umask
  } finally {
    closeSync(fd);
  }
  const client = new SqliteClient(source, { readonly: true });
  try {
    client.exec("PRAGMA busy_timeout = 5000");
    client.query("VACUUM INTO ?").run(partial);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    client.close();
  }
  syncFile(partial);
  renameSync(partial, target);
  syncFile(dirname(target)); // the rename itself survives a power cut
}

/**
 * Puts the backup `file` in place of the database at `live`, which no process may have open.
 * Throws with the reason when the file is not a sound gateway database or the database is in use.
 */
export function restoreSqlite(file: string, live: string): void {
  if (!existsSync(file)) throw new Error(`no file at ${file}`);
  if (databaseFiles(live).some((own) => sameFile(file, own))) throw new Error(`${file} is the live database's own file`);
  const problem = soundnessProblem(file);
  if (problem !== null) throw new Error(`${file} is not a sound gateway database: ${problem}`);
  const target = resolve(live);
  const partial = `${target}.restore-${process.pid}`;
  // The copy is made before the check, so that the moment between the check and the rename is short.
  copyInto(file, partial, partial);
  try {
    if (existsSync(target) && inUse(target)) throw new Error(`${live} is in use by another process (a running gateway?); stop it, then restore`);
    // The old database's WAL and shared memory go first: left beside the new file, the next
    // open would replay the old database's pages into it.
    for (const stale of databaseFiles(target).slice(1)) rmSync(stale, { force: true });
    renameSync(partial, target);
    syncFile(dirname(target));
  } finally {
    rmSync(partial, { force: true });
  }
}

/** What `PRAGMA integrity_check` finds wrong with `file`, or that it is not a gateway database; null when sound. */
function soundnessProblem(file: string): string | null {
  let client: SqliteClient | undefined;
  try {
    client = new SqliteClient(file, { readonly: true });
    const results = client.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
    const faults = results.map((r) => r.integrity_check).filter((r) => r !== "ok");
    if (faults.length > 0) return faults.slice(0, 3).join("; ");
    const table = client.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'gateway_migrations'").get() as { n: number };
    return table.n === 0 ? "it has no gateway_migrations table" : null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    client?.close();
  }
}

/**
 * Whether another process has the database open. Every connection to a WAL database holds a
 * shared lock on the file for as long as it is open, idle or not; an exclusive lock, which
 * `locking_mode = EXCLUSIVE` makes `BEGIN EXCLUSIVE` take on the file itself, is granted only
 * when no other connection exists. (Without that mode, BEGIN EXCLUSIVE in WAL mode takes only
 * the write lock, which an idle server does not hold.) This also catches a CLI command or a
 * backup running at that moment, which the restore must not pull the file from under either.
 * The connection is closed before the rename: on close, as the last one, SQLite checkpoints and
 * deletes the WAL by name, which must happen to the old database, not the new one.
 */
function inUse(path: string): boolean {
  const client = new SqliteClient(path);
  try {
    client.exec("PRAGMA busy_timeout = 1000");
    client.exec("PRAGMA locking_mode = EXCLUSIVE");
    client.exec("BEGIN EXCLUSIVE");
    client.exec("ROLLBACK");
    return false;
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY")) return true;
    throw error;
  } finally {
    client.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
