// The catalog's migrations written from core's registry, so that the two cannot drift: the
// seed (migrations/<dialect>/0001_seed_models.sql) and the cached-input prices
// (0008_cached_input_prices.sql). scripts/seed-models.ts writes them, and
// tests/unit/seed-models.test.ts fails when the committed SQL differs.
import { CACHED_INPUT_RATIOS, PRICE_STEP_NANOS } from "../core/cached-prices.ts";
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

/**
 * The cached-input prices out of the box, for installs seeded before they existed: each model
 * with a documented ratio gets its input price × the ratio, rounded up to the catalog's price
 * step, in SQL so that an operator's own input price is the one scaled. A price the operator
 * has already set (not null) is kept.
 */
export function cachedInputPricesSql(): string {
  const step = PRICE_STEP_NANOS;
  const updates = Object.entries(CACHED_INPUT_RATIOS).map(([id, { ratio: [cached, uncached], source }]) => {
    const denominator = BigInt(uncached) * step;
    return [
      `-- ${id}: ${cached}/${uncached} of the input price (${source})`,
      `UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * ${cached} + ${denominator - 1n}) / ${denominator}) * ${step}`,
      `WHERE id = ${text(id)} AND cached_input_nanos_per_mtok IS NULL;`,
    ].join("\n");
  });
  return `${updates.join("\n--> statement-breakpoint\n")}\n`;
}
