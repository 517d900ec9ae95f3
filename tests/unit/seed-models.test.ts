import { expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { cachedInputPricesSql, seedModelsSql } from "../../src/db/seed-models.ts";

// A change to core's catalog needs a migration of its own: the seed must stay what databases ran.
test.each(["sqlite", "postgres"])("the %s seed migration is the SQL written from core's catalog", async (dialect) => {
  const committed = await Bun.file(new URL(`../../migrations/${dialect}/0001_seed_models.sql`, import.meta.url)).text();
  expect(committed).toBe(seedModelsSql(FALLBACK_CATALOG));
});

test.each(["sqlite", "postgres"])("the %s cached-input prices migration is the SQL written from core's ratios", async (dialect) => {
  const committed = await Bun.file(new URL(`../../migrations/${dialect}/0008_cached_input_prices.sql`, import.meta.url)).text();
  expect(committed).toBe(cachedInputPricesSql());
});

test("quotes in catalog text are escaped", () => {
  const model = { ...FALLBACK_CATALOG[0]!, useCaseHint: "Bob's model" };
  expect(seedModelsSql([model])).toContain("'Bob''s model'");
});
