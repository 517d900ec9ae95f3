import { existsSync } from "node:fs";
import type { Model } from "../../core/catalog.ts";
import { openDatabase, type Database } from "../../db/database.ts";
import { migrationStatus } from "../../db/migration-status.ts";
import { createStore } from "../../db/store/index.ts";
import { withDeadline } from "../../server/deadline.ts";
import { displayUrl, failureText, type Check } from "./check.ts";

const DATABASE_DEADLINE_MS = 10_000;

interface DatabaseReport {
  checks: Check[];
  /** The catalog's enabled models, when the database could be read; null otherwise. */
  enabledModels: Model[] | null;
}

const report = (checks: Check[], enabledModels: Model[] | null = null): DatabaseReport => ({ checks, enabledModels });
const notChecked = (why: string): Check => ({ name: "migrations", status: "skip", message: `not checked: ${why}` });

/** Whether the database answers, whether its schema is this binary's, and which models it serves. Changes nothing. */
export async function checkDatabase(databaseUrl: string, preparedStatements = true): Promise<DatabaseReport> {
  const sqlitePath = databaseUrl.startsWith("sqlite:") ? databaseUrl.slice("sqlite:".length) : null;
  const where = sqlitePath === null ? `Postgres at ${displayUrl(databaseUrl)}` : `SQLite file ${sqlitePath}`;
  if (sqlitePath === ":memory:") {
    return report([{ name: "database", status: "warn", message: "an in-memory SQLite database: everything is lost when the process ends" }, notChecked("in-memory database")]);
  }
  // Opening a SQLite file creates it; the doctor only looks.
  if (sqlitePath !== null && !existsSync(sqlitePath)) {
    return report([
      { name: "database", status: "warn", message: `${where} does not exist yet: \`gateway migrate\` or \`gateway serve\` creates it` },
      notChecked("no database yet"),
    ]);
  }

  let db: Database;
  try {
    db = openDatabase(databaseUrl, { preparedStatements });
  } catch (error) {
    return report([{ name: "database", status: "fail", message: `cannot open ${where}: ${failureText(error)}` }, notChecked("no database")]);
  }
  try {
    try {
      await withDeadline(createStore(db).ping(), DATABASE_DEADLINE_MS);
    } catch (error) {
      return report([{ name: "database", status: "fail", message: `cannot reach ${where}: ${failureText(error)}` }, notChecked("no database")]);
    }
    if (sqlitePath === null && preparedStatements) {
      const refused = await pooledStatementsRefused(databaseUrl);
      if (refused) return report([{ name: "database", status: "fail", message: `${where} answers, but not as \`serve\` uses it: ${refused}` }, notChecked("the database refuses serve's statements")]);
    }
    const reachable: Check = { name: "database", status: "ok", message: `${where} answers` };
    try {
      return await readSchema(db, reachable);
    } catch (error) {
      return report([reachable, { name: "migrations", status: "fail", message: `cannot read the schema: ${failureText(error)}` }]);
    }
  } finally {
    await withDeadline(db.close(), DATABASE_DEADLINE_MS).catch(() => {});
  }
}

/** Two connections, each running the same statements in turn, as serve's pool does. */
const POOLED_CONNECTIONS = 2;
const POOLED_ROUNDS = 3;

/**
 * Why serve's statements fail on this Postgres, or null when they do not. With prepared
 * statements on, serve names each statement once per connection; through a transaction-pooling
 * pooler the next transaction may run on a server connection where that name is taken or
 * unknown. One connection alone never shows it: the same statements run on two, several times.
 */
async function pooledStatementsRefused(databaseUrl: string): Promise<string | null> {
  const clients = Array.from({ length: POOLED_CONNECTIONS }, () => openDatabase(databaseUrl, { preparedStatements: true, poolSize: 1 }));
  try {
    for (let round = 0; round < POOLED_ROUNDS; round++) {
      for (const db of clients) {
        const store = createStore(db);
        // Statements with parameters, as serve's are (one without any is not prepared by name).
        await withDeadline(store.getAccount("doctor: no such account"), DATABASE_DEADLINE_MS);
        await withDeadline(store.listModels(), DATABASE_DEADLINE_MS);
      }
    }
    return null;
  } catch (error) {
    const text = failureText(error);
    const advice = "a transaction-pooling pooler (PgBouncer, Supavisor) needs DATABASE_PREPARED_STATEMENTS=off";
    return /DATABASE_PREPARED_STATEMENTS=off/.test(text) ? text : `${text} (${advice})`;
  } finally {
    await Promise.all(clients.map((db) => withDeadline(db.close(), DATABASE_DEADLINE_MS).catch(() => {})));
  }
}

async function readSchema(db: Database, reachable: Check): Promise<DatabaseReport> {
  const { applied, pending, unknown } = await withDeadline(migrationStatus(db), DATABASE_DEADLINE_MS);
  if (unknown.length > 0) {
    return report([reachable, {
      name: "migrations",
      status: "fail",
      message: `the database has migrations this binary does not know (${unknown.join(", ")}): a newer gateway migrated it; run that version`,
    }]);
  }
  if (pending.length > 0) {
    return report([reachable, {
      name: "migrations",
      status: "warn",
      message: `${pending.length} of ${applied.length + pending.length} migrations not applied yet (${pending.join(", ")}): \`gateway migrate\` applies them, as \`gateway serve\` does when it starts`,
    }]);
  }
  const migrated: Check = { name: "migrations", status: "ok", message: `all ${applied.length} migrations applied` };
  return report([reachable, migrated], await withDeadline(createStore(db).listModels(), DATABASE_DEADLINE_MS));
}
