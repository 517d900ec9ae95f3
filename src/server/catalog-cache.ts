import type { ModelAlias } from "../core/aliases.ts";
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
  /** The catalog IDs an operator's alias stands for, in order; undefined when `name` is no alias. */
  alias(name: string): Promise<readonly string[] | undefined>;
  /** Every alias, by name. */
  aliases(): Promise<ModelAlias[]>;
}

/**
 * The model catalog and its aliases held in memory for the chat path, reloaded when older than
 * `CATALOG_MAX_AGE_MS` by one reload however many requests arrive. A copy's age counts from when
 * its queries started: an edit committed while they ran may be missing from it. When a
 * reload fails the last good copy is kept.
 */
export function catalogCache(store: ModelStore, now: () => number): CatalogCache {
  let models: Map<string, Model> | null = null;
  let aliases = new Map<string, ModelAlias>();
  let loadedAt = 0;
  let loading: Promise<void> | null = null;

  const reload = () => {
    const startedAt = now();
    loading ??= Promise.all([store.listModels({ includeDisabled: true }), store.listAliases()])
      .then(([list, named]) => {
        models = new Map(list.map((m) => [m.id, m]));
        aliases = new Map(named.map((a) => [a.name, a]));
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
    // Asked only of a name that is no model (or of none when `models` is sent): a request for a model never waits on it.
    alias: async (name) => {
      await fresh();
      return aliases.get(name)?.models;
    },
    aliases: async () => {
      await fresh();
      return [...aliases.values()];
    },
  };
}
