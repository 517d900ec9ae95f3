// The seed migration of the model catalog (migrations/<dialect>/0001_seed_models.sql), written
// from core's registry so that the two cannot drift: scripts/seed-models.ts writes it, and
// tests/unit/seed-models.test.ts fails when the committed SQL differs.
import type { Model } from "../core/catalog.ts";

const text = (value: string) => `'${value.replaceAll("'", "''")}'`;

const row = (m: Model, sortOrder: number) =>
  `(${[
    text(m.id), text(m.displayName), text(m.provider), text(m.category), m.contextWindow, m.inputPerMTok, m.outputPerMTok,
    text(m.upstreamModel), m.maxOutputTokens, text(m.useCaseHint), text(m.speedBadge), m.enabled ? 1 : 0, sortOrder,
  ].join(", ")})`;

/** The seed SQL for `models`, the same for both dialects. */
export function seedModelsSql(models: readonly Model[]): string {
  return [
    "-- The spec's model catalog, in its order; src/core/catalog.ts holds the same rows as the fallback registry.",
    "INSERT INTO models (id, display_name, provider, category, context_window, input_nanos_per_mtok, output_nanos_per_mtok, upstream_model, max_output_tokens, use_case_hint, speed_badge, enabled, sort_order) VALUES",
    models.map((m, i) => row(m, i + 1)).join(",\n") + ";",
    "",
  ].join("\n");
}
