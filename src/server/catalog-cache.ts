import type { Model } from "../core/catalog.ts";
import type { ModelStore } from "../core/store.ts";

/** Catalog edits reach every instance within this time. */
const MAX_AGE_MS = 10_000;

export interface CatalogCache {
  /** The catalog model with this ID, enabled or not; undefined when there is none. */
  find(id: string): Promise<Model | undefined>;
  /** Every catalog model, enabled or not, in catalog order. */
  list(): Promise<Model[]>;
}

/**
 * The model catalog held in memory for the chat path, reloaded at most every ten seconds by
 * one query however many requests arrive. When a reload fails the last good copy is kept.
 */
export function catalogCache(store: ModelStore, now: () => number): CatalogCache {
  let models: Map<string, Model> | null = null;
  let loadedAt = 0;
  let loading: Promise<void> | null = null;

  const reload = () => {
    loading ??= store
      .listModels({ includeDisabled: true })
      .then((list) => {
        models = new Map(list.map((m) => [m.id, m]));
        loadedAt = now();
      })
      .finally(() => {
        loading = null;
      });
    return loading;
  };

  const fresh = async () => {
    if (models === null) await reload();
    else if (now() - loadedAt > MAX_AGE_MS) await reload().catch(() => {});
    return models ?? new Map<string, Model>();
  };

  return {
    find: async (id) => (await fresh()).get(id),
    list: async () => [...(await fresh()).values()],
  };
}
