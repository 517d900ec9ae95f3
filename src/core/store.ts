import type { Model } from "./catalog.ts";
import type { Nanos } from "./money.ts";

// The ports through which core and the adapters reach storage. src/db implements them for
// SQLite and Postgres; every method is one atomic step.

export interface ModelChange {
  enabled?: boolean;
  inputPerMTok?: Nanos;
  outputPerMTok?: Nanos;
}

export interface ModelStore {
  /** Catalog models in catalog order; only enabled ones unless `includeDisabled`. */
  listModels(options?: { includeDisabled?: boolean }): Promise<Model[]>;
  /** Applies `change` to model `id`; null when there is no such model. */
  updateModel(id: string, change: ModelChange): Promise<Model | null>;
}

export interface HealthStore {
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
}

export type Store = ModelStore & HealthStore;
