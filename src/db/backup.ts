// `gateway backup`: a consistent copy of a live SQLite database, taken beside a running server.
import { Database as SqliteClient } from "bun:sqlite";
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Copies the SQLite database at `source` to `out` with `VACUUM INTO`, which reads one snapshot
 * (writers go on meanwhile, in WAL mode) and writes a compact copy without the free pages. The
 * copy is written beside `out` and renamed over it once complete and on disk, so `out` is
 * always either the previous backup or the new one, never half of one.
 */
export function backupSqlite(source: string, out: string): { bytes: number } {
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  const target = resolve(out);
  const partial = `${target}.partial-${process.pid}`;
  const client = new SqliteClient(source, { readonly: true });
  try {
    client.exec("PRAGMA busy_timeout = 5000");
    rmSync(partial, { force: true });
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
  return { bytes: Bun.file(target).size };
}

function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
