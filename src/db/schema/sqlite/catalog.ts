// The model catalog and its prices.
import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bigint, money } from "./columns.ts";

export const models = sqliteTable("models", {
  id: text("id").primaryKey(),
  displayName: text("display_name").notNull(),
  provider: text("provider").notNull(),
  category: text("category").notNull(),
  contextWindow: bigint("context_window").notNull(),
  inputNanosPerMTok: money("input_nanos_per_mtok").notNull(),
  outputNanosPerMTok: money("output_nanos_per_mtok").notNull(),
  // Null: cached prompt tokens are charged at the input price.
  cachedInputNanosPerMTok: money("cached_input_nanos_per_mtok"),
  upstreamModel: text("upstream_model").notNull(),
  maxOutputTokens: bigint("max_output_tokens").notNull(),
  useCaseHint: text("use_case_hint").notNull(),
  speedBadge: text("speed_badge").notNull(),
  enabled: bigint("enabled").notNull().default(1),
  sortOrder: bigint("sort_order").notNull().default(0),
});

// Operators' names for a list of models, tried in order (DESIGN, "Fallbacks and model aliases").
export const modelAliases = sqliteTable("model_aliases", {
  name: text("name").primaryKey(),
  // The catalog IDs, comma-separated in order: IDs never hold a comma (core/aliases.ts).
  models: text("models").notNull(),
  createdAt: bigint("created_at").notNull(),
});
