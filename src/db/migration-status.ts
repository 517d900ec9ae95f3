import type { Database } from "./database.ts";
import { MIGRATIONS } from "./migrations.gen.ts";
import { first, int, rows, type Work } from "./sql.ts";

interface MigrationStatus {
  /** Embedded migrations the database has. */
  applied: string[];
  /** Embedded migrations the database lacks: `migrate` (or `serve`) would apply them. */
  pending: string[];
  /** Migrations the database has that this binary does not know: a newer gateway applied them. */
  unknown: string[];
}

const MIGRATIONS_TABLE_EXISTS = {
  sqlite: "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'gateway_migrations'",
  postgres:
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'gateway_migrations'",
};

function* readStatus(db: Database): Work<MigrationStatus> {
  const table = yield* first<{ n: unknown }>(MIGRATIONS_TABLE_EXISTS[db.dialect]);
  const recorded = int(table?.n) === 0 ? [] : (yield* rows<{ tag: string }>("SELECT tag FROM gateway_migrations")).map((r) => r.tag);
  const embedded = MIGRATIONS[db.dialect].map((m) => m.tag);
  return {
    applied: embedded.filter((tag) => recorded.includes(tag)),
    pending: embedded.filter((tag) => !recorded.includes(tag)),
    unknown: recorded.filter((tag) => !embedded.includes(tag)),
  };
}

/** Which migrations the database has, without changing it. */
export const migrationStatus = (db: Database): Promise<MigrationStatus> => db.run(readStatus(db));
