// Writes src/db/schema/pg.gen.ts from src/db/schema/sqlite.ts, the one hand-written schema: drizzle
// has no dialect-neutral table builder, and the two dialects differ here only in their imports
// and table function. `make migrations` runs it before drizzle-kit; tests/unit/schema.test.ts
// fails when pg.gen.ts is stale; it is not committed: `make install` writes it.
import { pgSchemaFrom } from "../src/db/schema/derive-pg.ts";

const dir = new URL("../src/db/schema/", import.meta.url);
const source = await Bun.file(new URL("sqlite.ts", dir)).text();
await Bun.write(new URL("pg.gen.ts", dir), pgSchemaFrom(source));
console.log("wrote src/db/schema/pg.gen.ts");
