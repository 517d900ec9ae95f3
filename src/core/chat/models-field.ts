// `models: [id, …]`, OpenRouter's field, on every /v1 door: the models to try in order when one
// fails before answering (DESIGN, "Fallbacks and model aliases"). `model` is then optional.
import { Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AppError } from "../errors.ts";

/** At most five fallbacks besides `model`: each is a provider exchange that may run to its timeout. */
export const MAX_MODELS = 5;

/** The field in each door's schema (checked first by `withModels`, so that its error names it). */
export const ModelsField = T.Optional(T.Array(T.String({ minLength: 1, maxLength: 128 }), { minItems: 2, maxItems: MAX_MODELS }));

export const MODELS_RULE = `must be an array of 2 to ${MAX_MODELS} model IDs`;

const compiled = TypeCompiler.Compile(ModelsField);

/**
 * The body with `models` checked and, when `model` is absent, the first of `models` in its
 * place: the doors' schemas then see the model they require, and that model is what the
 * request asked for (the usage row's `requested_model`). A body without `models` is returned as it is.
 */
export function withModels<B extends Record<string, unknown>>(body: B): B {
  const models = body.models;
  if (models === undefined) return body;
  if (!compiled.Check(models)) throw new AppError("invalid_request_error", `Invalid request: models ${MODELS_RULE}`, { param: "models" });
  return body.model === undefined ? { ...body, model: (models as string[])[0] } : body;
}
