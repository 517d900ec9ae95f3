// Gives each test file its own fresh database on every dialect under test: SQLite always,
// Postgres when TEST_DATABASE_URL names a server (each file gets a new database on it).
// TEST_DATABASE_POOLER=pgbouncer hands out those databases through one PgBouncer in
// transaction mode (started on first use, stopped with the test process) and turns
// DATABASE_PREPARED_STATEMENTS off for everything the tests start.
import { SQL } from "bun";
import { describe } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Database } from "../../src/db/database.ts";
import type { Dialect } from "../../src/db/migration-files.ts";
import { pgbouncerInstalled, startPgbouncer, type Pooler } from "./pgbouncer.ts";

const pgServer = process.env.TEST_DATABASE_URL;
let announced = false;

const poolerSetting = process.env.TEST_DATABASE_POOLER;
if (poolerSetting !== undefined && poolerSetting !== "" && poolerSetting !== "pgbouncer") {
  throw new Error(`TEST_DATABASE_POOLER must be pgbouncer or unset (got "${poolerSetting}")`);
}
const throughPooler = pgServer !== undefined && poolerSetting === "pgbouncer";
if (throughPooler) {
  if (!pgbouncerInstalled()) throw new Error("TEST_DATABASE_POOLER=pgbouncer, but pgbouncer is not installed (apt-get install pgbouncer)");
  process.env.DATABASE_PREPARED_STATEMENTS = "off"; // read by the servers and CLIs the tests spawn
}
let pooler: Promise<Pooler> | undefined;

/** The test's own handle on a test database, with the prepared-statement setting of the run. */
export function openTestDatabase(url: string): Database {
  return openDatabase(url, { preparedStatements: process.env.DATABASE_PREPARED_STATEMENTS !== "off" });
}

export interface TestDatabase {
  dialect: Dialect;
  url: string;
  /** The same database not through the run's pooler (TEST_DATABASE_POOLER); otherwise `url`. */
  direct: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "gateway-test-"));
    const url = `sqlite:${join(dir, "gateway.db")}`;
    return { dialect, url, direct: url, drop: async () => rmSync(dir, { recursive: true, force: true }) };
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
    url: throughPooler ? (await (pooler ??= startPgbouncer(pgServer))).through(url.toString()) : url.toString(),
    direct: url.toString(),
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
