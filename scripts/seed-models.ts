// Writes the catalog's seed migration for both dialects from src/core/catalog.ts.
import { FALLBACK_CATALOG } from "../src/core/catalog.ts";
import { seedModelsSql } from "../src/db/seed-models.ts";

for (const dialect of ["sqlite", "postgres"]) {
  const target = new URL(`../migrations/${dialect}/0001_seed_models.sql`, import.meta.url);
  await Bun.write(target, seedModelsSql(FALLBACK_CATALOG));
  console.log(`wrote ${target.pathname}`);
}
