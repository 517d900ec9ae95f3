import type { Model } from "../core/catalog.ts";
import type { ModelStore } from "../core/store.ts";

/**
 * How old a copy may be before a request reloads it. DESIGN promises that catalog edits reach
 * every instance within 10 s; half of it leaves room for the reload's own query and for a
 * request that arrives just before a copy runs out.
 */
export const CATALOG_MAX_AGE_MS = 5_000;

export interface CatalogCache {
  /** The catalog model with this ID, enabled or not; undefined when there is none. */
  find(id: string): Promise<Model | undefined>;
  /** Every catalog model, enabled or not, in catalog order. */
  list(): Promise<Model[]>;
}

/**
 * The model catalog held in memory for the chat path, reloaded when older than
 * `CATALOG_MAX_AGE_MS` by one query however many requests arrive. A copy's age counts from when
 * its query started: an edit committed while the query ran may be missing from it. When a
 * reload fails the last good copy is kept.
 */
export function catalogCache(store: ModelStore, now: () => number): CatalogCache {
  let models: Map<string, Model> | null = null;
  let loadedAt = 0;
  let loading: Promise<void> | null = null;

  const reload = () => {
    const startedAt = now();
    loading ??= store
      .listModels({ includeDisabled: true })
      .then((list) => {
        models = new Map(list.map((m) => [m.id, m]));
        loadedAt = startedAt;
      })
      .finally(() => {
        loading = null;
      });
    return loading;
  };

  const fresh = async () => {
    if (models === null) await reload();
    else if (now() - loadedAt >= CATALOG_MAX_AGE_MS) await reload().catch(() => {});
    return models ?? new Map<string, Model>();
  };

  return {
    // A fresh copy (nearly every request) is answered without an async function's frames.
    find: (id) => (models !== null && now() - loadedAt < CATALOG_MAX_AGE_MS ? Promise.resolve(models.get(id)) : fresh().then((m) => m.get(id))),
    list: async () => [...(await fresh()).values()],
  };
}
