// What an attacker holding the disk (or a copy of the database) reads: the bytes of every file
// a database keeps, for tests that a secret is in none of them.
import { SQL } from "bun";
import { expect } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import type { TestDatabase } from "./databases.ts";

/** Every file SQLite keeps for the database at `url` (the file, its WAL, a rollback journal), as latin1 text. */
export function sqliteFiles(url: string): string[] {
  const path = url.slice("sqlite:".length);
  return [path, `${path}-wal`, `${path}-journal`].filter(existsSync).map((file) => readFileSync(file).toString("latin1"));
}

/**
 * The file of every table, index, TOAST table and materialized view of the test database, read
 * by the server (the test connects as a superuser) after a checkpoint, directly rather than
 * through a pooler. Catalogs with no file of their own (relfilenode 0, mapped) hold no user data.
 */
export async function postgresFiles(testDb: TestDatabase): Promise<string[]> {
  const conn = new SQL(testDb.direct, { max: 1 });
  try {
    await conn.unsafe("CHECKPOINT");
    const paths = await conn.unsafe(
      "SELECT pg_relation_filepath(c.oid) AS path FROM pg_class c WHERE c.relfilenode <> 0 AND c.relkind IN ('r', 'i', 't', 'm')",
    ) as { path: string | null }[];
    const files: string[] = [];
    for (const { path } of paths) {
      if (path === null) continue;
      const [file] = await conn.unsafe("SELECT pg_read_binary_file($1::text) AS bytes", [path]) as { bytes: Uint8Array | null }[];
      if (file?.bytes) files.push(Buffer.from(file.bytes).toString("latin1"));
    }
    expect(files.length).toBeGreaterThan(10);
    return files;
  } finally {
    await conn.close();
  }
}

/** The files of the test database, of either dialect. */
export const databaseFiles = (testDb: TestDatabase): Promise<string[]> =>
  testDb.dialect === "sqlite" ? Promise.resolve(sqliteFiles(testDb.url)) : postgresFiles(testDb);
