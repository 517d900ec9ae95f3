// Operators' model aliases: one name for a list of catalog models tried in order, for clients
// that can name only one model (Claude Code's ANTHROPIC_MODEL, Codex's -m). DESIGN, "Fallbacks
// and model aliases".
import type { Model } from "./catalog.ts";
import { MAX_MODELS } from "./chat/models-field.ts";

export interface ModelAlias {
  name: string;
  /** Catalog IDs, in the order to try. */
  models: string[];
}

// The catalog's IDs' alphabet (`gpt-5.4-mini`, `llama-3.3-70b-instruct`): a name a client can
// send wherever it sends a model ID.
const ALIAS_NAME = /^[a-z0-9][a-z0-9.-]{0,127}$/;

/**
 * The alias as it is kept, or why it cannot be: its name is in the catalog IDs' alphabet and
 * no model's ID; its models are 1 to 5 catalog IDs, each once.
 */
export function checkAlias(name: string, models: readonly string[], catalog: readonly Pick<Model, "id">[]): { alias: ModelAlias } | { reason: string } {
  if (!ALIAS_NAME.test(name)) return { reason: "An alias is lowercase letters, digits, dots and dashes (at most 128), starting with a letter or digit" };
  const ids = new Set(catalog.map((m) => m.id));
  if (ids.has(name)) return { reason: `\`${name}\` is a model's ID: an alias needs a name of its own` };
  const list = [...new Set(models)];
  if (list.length === 0 || list.length > MAX_MODELS) return { reason: `An alias stands for 1 to ${MAX_MODELS} models` };
  const unknown = list.find((id) => !ids.has(id));
  if (unknown !== undefined) return { reason: `\`${unknown}\` is not a catalog model` };
  return { alias: { name, models: list } };
}
