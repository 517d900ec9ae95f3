// Writes src/db/migrations.gen.ts from the SQL files drizzle-kit keeps in migrations/, so that
// the compiled binary carries its migrations. `make migrations` runs it after drizzle-kit.
import { renderMigrations } from "../src/db/migration-files.ts";

const target = new URL("../src/db/migrations.gen.ts", import.meta.url);
await Bun.write(target, await renderMigrations(new URL("../migrations/", import.meta.url)));
console.log(`wrote ${target.pathname}`);
