import { afterAll, beforeAll, expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos } from "../../src/core/money.ts";
import type { Store } from "../../src/core/ports.ts";
import type { Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { MIGRATIONS } from "../../src/db/migrations.gen.ts";
import { exec } from "../../src/db/sql.ts";
import { createStore } from "../../src/db/store/index.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase, type TestDatabase } from "../support/databases.ts";

describeEachDialect("migrations and the model store", (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let store: Store;
  let firstRun: string[];

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    db = openTestDatabase(testDb.url);
    firstRun = await migrate(db);
    store = createStore(db);
  });
  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  test("migrating applies every migration once and is then a no-op", async () => {
    // Every embedded migration, in order, the first ones being the schema and the catalog's seed.
    expect(firstRun).toEqual(MIGRATIONS[dialect].map((m) => m.tag));
    expect(firstRun.slice(0, 3)).toEqual(["0000_init", "0001_seed_models", "0002_drop_reservations_lease_idx"]);
    expect(await migrate(db)).toEqual([]);
  });

  test("the seeded catalog is the spec's 22 models, equal to the fallback registry", async () => {
    const models = await store.listModels({ includeDisabled: true });
    expect(models).toHaveLength(22);
    expect(models).toEqual([...FALLBACK_CATALOG]);
  });

  test("a disabled model leaves the enabled list and comes back when enabled", async () => {
    expect((await store.updateModel("gpt-4o", { enabled: false }))?.enabled).toBe(false);
    expect((await store.listModels()).map((m) => m.id)).not.toContain("gpt-4o");
    expect((await store.listModels({ includeDisabled: true })).map((m) => m.id)).toContain("gpt-4o");
    await store.updateModel("gpt-4o", { enabled: true });
    expect((await store.listModels()).map((m) => m.id)).toContain("gpt-4o");
  });

  test("repricing changes only the prices", async () => {
    const before = FALLBACK_CATALOG.find((m) => m.id === "kimi-k2.5")!;
    const after = await store.updateModel("kimi-k2.5", { inputPerMTok: nanos(1n), outputPerMTok: nanos(123_456_789n) });
    expect(after).toEqual({ ...before, inputPerMTok: nanos(1n), outputPerMTok: nanos(123_456_789n) });
  });

  test("every model with a documented ratio has its cached-input price out of the box: input × ratio, rounded up to the price step", async () => {
    const models = await store.listModels({ includeDisabled: true });
    expect(models.find((m) => m.id === "gpt-4.1")?.cachedInputPerMTok).toBe(nanos(500_000_000n)); // $2.00 × 1/4
    expect(models.find((m) => m.id === "deepseek-v4-pro")?.cachedInputPerMTok).toBe(nanos(16_100_000n)); // $1.93 / 120, up to $0.0161
    expect(models.find((m) => m.id === "llama-4-scout")?.cachedInputPerMTok).toBeNull(); // no documented discount: the input price
    expect(models.filter((m) => m.cachedInputPerMTok === null).map((m) => m.provider)).toEqual(["meta", "meta", "meta"]);
  });

  test("the cached-input prices migration keeps a price the operator set, and scales the operator's own input price", async () => {
    await store.updateModel("gpt-4o", { cachedInputPerMTok: nanos(999_900_000n) });
    await store.updateModel("gpt-5", { inputPerMTok: nanos(2_000_000_000n), cachedInputPerMTok: null });
    const migration = MIGRATIONS[dialect].find((m) => m.tag === "0008_cached_input_prices")!;
    for (const statement of migration.statements) await db.run(exec(statement));
    const models = await store.listModels({ includeDisabled: true });
    expect(models.find((m) => m.id === "gpt-4o")?.cachedInputPerMTok).toBe(nanos(999_900_000n));
    expect(models.find((m) => m.id === "gpt-5")?.cachedInputPerMTok).toBe(nanos(200_000_000n));
    await store.updateModel("gpt-4o", { cachedInputPerMTok: FALLBACK_CATALOG.find((m) => m.id === "gpt-4o")!.cachedInputPerMTok });
    await store.updateModel("gpt-5", { inputPerMTok: FALLBACK_CATALOG.find((m) => m.id === "gpt-5")!.inputPerMTok });
  });

  test("updating an unknown model answers null", async () => {
    expect(await store.updateModel("no-such-model", { enabled: false })).toBeNull();
  });

  test("the ping answers", async () => {
    await store.ping();
  });

  test("aliases are saved in order, replaced by name, listed by name and removed once", async () => {
    await store.saveAlias({ name: "zeta", models: ["gpt-4.1", "llama-4-scout"] }, 1);
    await store.saveAlias({ name: "alpha", models: ["kimi-k2.6"] }, 2);
    await store.saveAlias({ name: "zeta", models: ["llama-4-scout", "gpt-4.1", "gpt-5"] }, 3);
    expect(await store.listAliases()).toEqual([
      { name: "alpha", models: ["kimi-k2.6"] },
      { name: "zeta", models: ["llama-4-scout", "gpt-4.1", "gpt-5"] },
    ]);
    expect([await store.removeAlias("alpha"), await store.removeAlias("alpha")]).toEqual([true, false]);
    expect((await store.listAliases()).map((a) => a.name)).toEqual(["zeta"]);
  });
});
