// Gives each test file its own fresh database on every dialect under test: SQLite always,
// Postgres when TEST_DATABASE_URL names a server (each file gets a new database on it).
import { SQL } from "bun";
import { describe } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Dialect } from "../../src/db/migration-files.ts";

const pgServer = process.env.TEST_DATABASE_URL;
let announced = false;

export interface TestDatabase {
  dialect: Dialect;
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "gateway-test-"));
    return { dialect, url: `sqlite:${join(dir, "gateway.db")}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (!pgServer) throw new Error("TEST_DATABASE_URL is not set");
  const name = `gw_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new SQL(pgServer, { max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.close();
  const url = new URL(pgServer);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    drop: async () => {
      const conn = new SQL(pgServer, { max: 1 });
      await conn.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await conn.close();
    },
  };
}

/** The dialects this run covers; says once, visibly, when Postgres is left out. */
export function dialectsUnderTest(): Dialect[] {
  if (!pgServer && !announced) {
    announced = true;
    console.log("note: TEST_DATABASE_URL is not set; the Postgres variants of the store and server tests are skipped");
  }
  return pgServer ? ["sqlite", "postgres"] : ["sqlite"];
}

/** Declares the same suite once per dialect under test. */
export function describeEachDialect(title: string, suite: (dialect: Dialect) => void): void {
  for (const dialect of dialectsUnderTest()) describe(`${title} [${dialect}]`, () => suite(dialect));
  if (!pgServer) describe.skip(`${title} [postgres: set TEST_DATABASE_URL]`, () => {});
}

/** Declares a suite that needs Postgres (several processes sharing one database); skipped, visibly, without it. */
export function describeOnPostgres(title: string, suite: () => void): void {
  if (pgServer) describe(`${title} [postgres]`, suite);
  else describe.skip(`${title} [postgres: set TEST_DATABASE_URL]`, () => {});
}
