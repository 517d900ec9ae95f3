// The Postgres schema as a function of the SQLite one (see scripts/schema-pg.ts).

const SQLITE_IMPORT = /^import \{([^}]*)\} from "drizzle-orm\/sqlite-core";$/m;

/**
 * The text of a generated Postgres schema file for the text of the SQLite schema file `origin`
 * (src/db/schema/sqlite.ts or one of src/db/schema/sqlite/*.ts): the dialect's imports and table
 * builder swapped, and relative imports pointed at the generated twins (`./sqlite/x.ts` is
 * `./pg/x.gen.ts`, `./x.ts` beside it `./x.gen.ts`).
 */
export function pgSchemaFrom(sqliteSource: string, origin: string): string {
  const match = SQLITE_IMPORT.exec(sqliteSource);
  const names = match ? match[1]!.split(",").map((n) => n.trim()).filter(Boolean) : [];
  const pgNames = names
    .map((n) => (n === "sqliteTable" ? "pgTable" : n === "integer" ? "bigint as int8" : n))
    .sort((a, b) => a.localeCompare(b));
  return [
    `// GENERATED from ${origin} by scripts/schema-pg.ts (\`make migrations\`); do not edit.`,
    sqliteSource
      .replace(SQLITE_IMPORT, `import { ${pgNames.join(", ")} } from "drizzle-orm/pg-core";`)
      .replace(/from "\.\/sqlite\/([\w-]+)\.ts";/g, 'from "./pg/$1.gen.ts";')
      .replace(/from "\.\/([\w-]+)\.ts";/g, 'from "./$1.gen.ts";')
      .replace(/\binteger\(name, \{ mode: "number" \}\)/g, 'int8(name, { mode: "number" })')
      .replace(/\bsqliteTable\(/g, "pgTable("),
  ].join("\n");
}

/** Each generated Postgres file (relative to src/db/schema/) and the SQLite file it comes from. */
export function pgSchemaFiles(sqliteFiles: string[]): { from: string; to: string }[] {
  return [
    { from: "sqlite.ts", to: "pg.gen.ts" },
    ...sqliteFiles.map((name) => ({ from: `sqlite/${name}`, to: `pg/${name.replace(/\.ts$/, ".gen.ts")}` })),
  ];
}
