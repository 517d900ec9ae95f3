import { expect, test } from "bun:test";
import { FALLBACK_CATALOG, type Model } from "../../../src/core/catalog.ts";
import { CATALOG_MAX_AGE_MS, catalogCache } from "../../../src/server/catalog-cache.ts";

/** A catalog whose one model is enabled or not, read by a query that takes `queryMs` of the fake clock. */
function editableCatalog(queryMs: number) {
  const clock = { now: 0 };
  let enabled = false;
  const model: Model = { ...(FALLBACK_CATALOG[0] as Model), enabled: false };
  const store = {
    listModels: async () => {
      const read = enabled; // the row as the query reads it, when it starts
      clock.now += queryMs;
      return [{ ...model, enabled: read }];
    },
    listAliases: async () => [],
  } as unknown as Parameters<typeof catalogCache>[0];
  return { clock, store, id: model.id, enable: () => { enabled = true; } };
}

test("an edit committed while a reload's query runs is seen by every request 10 s after it", async () => {
  const catalog = editableCatalog(50);
  const cache = catalogCache(catalog.store, () => catalog.clock.now);
  // Requests every 100 ms; the edit lands just after a reload's query has read the row.
  let editedAt: number | null = null;
  for (let t = 0; t < 20_000; t += 100) {
    catalog.clock.now = Math.max(catalog.clock.now, t);
    const seen = (await cache.find(catalog.id))?.enabled;
    if (editedAt === null && t >= 3_000) {
      catalog.enable();
      editedAt = catalog.clock.now;
    }
    if (editedAt !== null && t - editedAt >= 10_000) expect({ t, seen }).toEqual({ t, seen: true });
  }
  expect(CATALOG_MAX_AGE_MS).toBeLessThanOrEqual(5_000);
});

test("a copy is reloaded once it is CATALOG_MAX_AGE_MS old, by one query for concurrent requests", async () => {
  const catalog = editableCatalog(0);
  let queries = 0;
  const counted = { listModels: async () => { queries++; return catalog.store.listModels({ includeDisabled: true }); }, listAliases: async () => [] } as unknown as Parameters<typeof catalogCache>[0];
  const cache = catalogCache(counted, () => catalog.clock.now);
  await cache.list();
  catalog.enable();
  catalog.clock.now = CATALOG_MAX_AGE_MS - 1;
  expect((await cache.find(catalog.id))?.enabled).toBe(false);
  catalog.clock.now = CATALOG_MAX_AGE_MS;
  const seen = await Promise.all([cache.find(catalog.id), cache.find(catalog.id), cache.list()]);
  expect(seen[0]?.enabled).toBe(true);
  expect(queries).toBe(2);
});

test("aliases are loaded with the models, in one reload, and answered from the copy", async () => {
  let reloads = 0;
  const store = {
    listModels: async () => { reloads++; return [FALLBACK_CATALOG[0]]; },
    listAliases: async () => [{ name: "fast", models: ["gpt-4.1-nano", "llama-4-scout"] }],
  } as unknown as Parameters<typeof catalogCache>[0];
  const cache = catalogCache(store, () => 0);
  expect(await cache.alias("fast")).toEqual(["gpt-4.1-nano", "llama-4-scout"]);
  expect(await cache.alias(FALLBACK_CATALOG[0]!.id)).toBeUndefined();
  expect((await cache.find(FALLBACK_CATALOG[0]!.id))?.id).toBe(FALLBACK_CATALOG[0]!.id);
  expect(await cache.aliases()).toEqual([{ name: "fast", models: ["gpt-4.1-nano", "llama-4-scout"] }]);
  expect(reloads).toBe(1);
});
