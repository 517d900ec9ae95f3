import type { Database } from "./database.ts";
import type { Migration } from "./migration-files.ts";
import { MIGRATIONS } from "./migrations.gen.ts";
import { exec, rows, type Work } from "./sql.ts";
import { EMAIL_SKELETON_MIGRATION, fillEmailSkeletons } from "./store/accounts/email-skeletons.ts";

// Any fixed number: instances starting together on one Postgres take turns migrating.
const MIGRATION_LOCK_ID = 7_342_001;

function* applyPending(db: Database, migrations: Migration[], now: number): Work<string[]> {
  if (db.dialect === "postgres") yield* exec("SELECT pg_advisory_xact_lock(?)", MIGRATION_LOCK_ID);
  yield* exec("CREATE TABLE IF NOT EXISTS gateway_migrations (tag text PRIMARY KEY, applied_at bigint NOT NULL)");
  const applied = new Set((yield* rows<{ tag: string }>("SELECT tag FROM gateway_migrations")).map((r) => r.tag));
  const pending = migrations.filter((m) => !applied.has(m.tag));
  for (const migration of pending) {
    for (const statement of migration.statements) yield* exec(statement);
    yield* exec("INSERT INTO gateway_migrations (tag, applied_at) VALUES (?, ?)", migration.tag, now);
    // Keys computed in TypeScript (the confusables mapping is no SQL), for the rows made before them.
    if (migration.tag === EMAIL_SKELETON_MIGRATION) yield* fillEmailSkeletons();
  }
  return pending.map((m) => m.tag);
}

/** Applies the embedded migrations that `db` lacks, all in one transaction. Returns their tags. */
export function migrate(db: Database, now: number = Date.now()): Promise<string[]> {
  return db.transaction(applyPending(db, MIGRATIONS[db.dialect], now));
}
