// The Postgres schema as a function of the SQLite one (see scripts/schema-pg.ts).

const SQLITE_IMPORT = /^import \{([^}]*)\} from "drizzle-orm\/sqlite-core";$/m;

/** The text of src/db/schema/pg.gen.ts for the text of src/db/schema/sqlite.ts. */
export function pgSchemaFrom(sqliteSource: string): string {
  const match = SQLITE_IMPORT.exec(sqliteSource);
  if (!match) throw new Error("sqlite.ts must import from drizzle-orm/sqlite-core in one line");
  const names = match[1]!.split(",").map((n) => n.trim()).filter(Boolean);
  const pgNames = names
    .map((n) => (n === "sqliteTable" ? "pgTable" : n === "integer" ? "bigint as int8" : n))
    .sort((a, b) => a.localeCompare(b));
  return [
    "// GENERATED from src/db/schema/sqlite.ts by scripts/schema-pg.ts (`make migrations`); do not edit.",
    sqliteSource
      .replace(SQLITE_IMPORT, `import { ${pgNames.join(", ")} } from "drizzle-orm/pg-core";`)
      .replace(/\binteger\(name, \{ mode: "number" \}\)/g, 'int8(name, { mode: "number" })')
      .replace(/\bsqliteTable\(/g, "pgTable("),
  ].join("\n");
}
