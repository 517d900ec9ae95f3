import { asc, eq } from "drizzle-orm";
import type { ModelAlias } from "../../core/aliases.ts";
import type { Category, Model, Provider } from "../../core/catalog.ts";
import { nanos } from "../../core/money.ts";
import type { ModelChange, ModelStore } from "../../core/store.ts";
import type { Database } from "../database.ts";
import { modelAliases } from "../schema/sqlite.ts";
import { exec, first, int, rows, type Row, type Work } from "../sql.ts";
import { build, query, records } from "../typed.ts";

const COLUMNS = `id, display_name, provider, category, context_window, input_nanos_per_mtok, output_nanos_per_mtok,
  cached_input_nanos_per_mtok, upstream_model, max_output_tokens, use_case_hint, speed_badge, enabled`;

const toModel = (r: Row): Model => ({
  id: r.id as string,
  displayName: r.display_name as string,
  provider: r.provider as Provider,
  category: r.category as Category,
  contextWindow: int(r.context_window),
  inputPerMTok: nanos(r.input_nanos_per_mtok as bigint),
  outputPerMTok: nanos(r.output_nanos_per_mtok as bigint),
  cachedInputPerMTok: r.cached_input_nanos_per_mtok === null ? null : nanos(r.cached_input_nanos_per_mtok as bigint),
  upstreamModel: r.upstream_model as string,
  maxOutputTokens: int(r.max_output_tokens),
  useCaseHint: r.use_case_hint as string,
  speedBadge: r.speed_badge as string,
  enabled: int(r.enabled) === 1,
});

function* listModels(includeDisabled: boolean): Work<Model[]> {
  const where = includeDisabled ? "" : "WHERE enabled = 1";
  return (yield* rows(`SELECT ${COLUMNS} FROM models ${where} ORDER BY sort_order, id`)).map(toModel);
}

export function* updateModel(id: string, change: ModelChange): Work<Model | null> {
  const current = yield* first(`SELECT ${COLUMNS} FROM models WHERE id = ?`, id);
  if (!current) return null;
  const model = toModel(current);
  const next = {
    enabled: change.enabled ?? model.enabled,
    input: change.inputPerMTok ?? model.inputPerMTok,
    output: change.outputPerMTok ?? model.outputPerMTok,
    cachedInput: change.cachedInputPerMTok === undefined ? (model.cachedInputPerMTok ?? null) : change.cachedInputPerMTok,
  };
  const updated = yield* first(
    `UPDATE models SET enabled = ?, input_nanos_per_mtok = ?, output_nanos_per_mtok = ?, cached_input_nanos_per_mtok = ?
     WHERE id = ? RETURNING ${COLUMNS}`,
    next.enabled ? 1 : 0, next.input, next.output, next.cachedInput, id,
  );
  return updated ? toModel(updated) : null;
}

function* listAliases(): Work<ModelAlias[]> {
  const found = yield* records(modelAliases, build.select().from(modelAliases).orderBy(asc(modelAliases.name)));
  return found.map((row) => ({ name: row.name, models: row.models.split(",") }));
}

// Written by hand: drizzle's SQLite builder names the conflict target with its table, which Postgres refuses.
function* saveAlias(alias: ModelAlias, now: number): Work<void> {
  yield* exec(
    "INSERT INTO model_aliases (name, models, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET models = excluded.models",
    alias.name, alias.models.join(","), now,
  );
}

function* removeAlias(name: string): Work<boolean> {
  const removed = yield* query(build.delete(modelAliases).where(eq(modelAliases.name, name)).returning({ name: modelAliases.name }));
  return removed.length > 0;
}

export const modelStore = (db: Database): ModelStore => ({
  listModels: (options = {}) => db.run(listModels(options.includeDisabled ?? false)),
  updateModel: (id, change) => db.transaction(updateModel(id, change)),
  listAliases: () => db.run(listAliases()),
  saveAlias: (alias, now) => db.transaction(saveAlias(alias, now)),
  removeAlias: (name) => db.transaction(removeAlias(name)),
});
