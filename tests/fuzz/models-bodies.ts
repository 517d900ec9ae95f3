// `models` (the fallbacks) for the endpoint fuzzer's three doors: valid lists, lists naming an
// unknown model, too short or too long, and anything; a body that drops `model` for them; and
// the verdict's part on it.
import fc from "fast-check";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";

const MODEL_IDS = FALLBACK_CATALOG.map((m) => m.id);

// Translated on every door of the fuzzer's chat-only provider, and taking tools and images: a
// list of them always leaves a candidate, whatever the body needs.
const ANY_REQUEST = ["kimi-k2.6", "kimi-k2.5", "llama-4-maverick", "llama-4-scout"];

export const modelsField = (anyJson: fc.Arbitrary<unknown>) =>
  fc.oneof(
    fc.array(fc.constantFrom(...ANY_REQUEST), { minLength: 2, maxLength: 5 }),
    fc.tuple(fc.constantFrom(...ANY_REQUEST), fc.constantFrom("no-such-model", "claude-sonnet-4-5", "")).map(([known, unknown]) => [known, unknown]),
    fc.array(fc.constantFrom(...ANY_REQUEST), { maxLength: 1 }),
    fc.array(fc.constantFrom(...ANY_REQUEST), { minLength: 6, maxLength: 8 }),
    anyJson,
  );

/** The body with `models` in place of `model`: the first of them is then the model asked for. */
export const withModelsOnly = <B extends { model?: unknown }>(body: B, models: unknown): Omit<B, "model"> & { models: unknown } => {
  const { model: _model, ...rest } = body;
  return { ...rest, models };
};

/** Whether every model a parsed request names is in the catalog (its `models` too, when it has them). */
export const namesOnlyCatalogModels = (request: { model: string; models?: string[] }): boolean =>
  MODEL_IDS.includes(request.model) && (request.models ?? []).every((id) => MODEL_IDS.includes(id));
