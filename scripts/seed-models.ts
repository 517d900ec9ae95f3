// Writes the catalog's migrations for both dialects from src/core/catalog.ts and
// src/core/cached-prices.ts: the seed and the cached-input prices.
import { FALLBACK_CATALOG } from "../src/core/catalog.ts";
import { cachedInputPricesSql, seedModelsSql } from "../src/db/seed-models.ts";

for (const dialect of ["sqlite", "postgres"]) {
  const files: [string, string][] = [["0001_seed_models.sql", seedModelsSql(FALLBACK_CATALOG)], ["0008_cached_input_prices.sql", cachedInputPricesSql()]];
  for (const [file, sql] of files) {
    const target = new URL(`../migrations/${dialect}/${file}`, import.meta.url);
    await Bun.write(target, sql);
    console.log(`wrote ${target.pathname}`);
  }
}
