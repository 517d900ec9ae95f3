import { afterAll, beforeAll, expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos } from "../../src/core/money.ts";
import type { Store } from "../../src/core/ports.ts";
import { openDatabase, type Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { MIGRATIONS } from "../../src/db/migrations.gen.ts";
import { createStore } from "../../src/db/store/index.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";

describeEachDialect("migrations and the model store", (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let store: Store;
  let firstRun: string[];

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    db = openDatabase(testDb.url);
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

  test("updating an unknown model answers null", async () => {
    expect(await store.updateModel("no-such-model", { enabled: false })).toBeNull();
  });

  test("the ping answers", async () => {
    await store.ping();
  });
});
