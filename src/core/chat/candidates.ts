// Which catalog models may serve a request, in the order to try them: the one `model` names, an
// operator's alias's list, or `model` and then `models` (DESIGN, "Fallbacks and model aliases").
import type { Model } from "../catalog.ts";
import type { ApiKey } from "../entities.ts";
import { AppError } from "../errors.ts";
import { takesImages, takesTools } from "./capabilities.ts";
import { typicalPromptTokens } from "./price.ts";
import type { ChatRequest } from "./request.ts";

export interface CatalogPorts {
  /** The catalog as the operator set it (cached for at most a few seconds). */
  findModel(id: string): Promise<Model | null | undefined>;
  /** The catalog IDs an operator's alias stands for, in order; undefined when `name` is no alias. */
  findAlias(name: string): Promise<readonly string[] | undefined>;
}

export interface Candidates {
  /** What the client asked for: the alias, `model`, or the first of `models` (the usage row's `requested_model`). */
  requested: string;
  /** Whether `requested` is an alias: a key that allows it allows the alias's models through it. */
  alias: boolean;
  /** The models that may serve the request, in the order to try; never empty. */
  models: readonly Model[];
}

/** A request for one enabled model: the path almost every request takes. */
export const single = (model: Model): Candidates => ({ requested: model.id, alias: false, models: [model] });

const notEnabled = (id: string) => new AppError("invalid_request_error", `The model \`${id}\` does not exist or is not enabled`);

/** What the request needs of a model beyond text. */
interface Needs {
  promptTokens: number;
  tools: boolean;
  images: boolean;
}

const hasImage = (message: ChatRequest["messages"][number]): boolean =>
  Array.isArray(message.content) && message.content.some((part) => (part as { type?: unknown }).type === "image_url");

function needsOf(request: ChatRequest, bodyBytes: number): Needs {
  return {
    promptTokens: typicalPromptTokens(bodyBytes, request.messages.length),
    tools: request.tools?.some((tool) => tool.type === "function" || tool.type === "custom") ?? false,
    images: request.messages.some(hasImage),
  };
}

/** Why `model` cannot serve the request (the error it would have given alone), or null when it can. */
function unfit(model: Model, needs: Needs): AppError | null {
  if (!model.enabled) return notEnabled(model.id);
  if (needs.promptTokens > model.contextWindow) {
    return new AppError("invalid_request_error", `The request's estimated ${needs.promptTokens} input tokens exceed the context window of \`${model.id}\` (${model.contextWindow})`);
  }
  if (needs.tools && !takesTools(model)) return new AppError("invalid_request_error", `The model \`${model.id}\` does not take tools`);
  if (needs.images && !takesImages(model)) return new AppError("invalid_request_error", `The model \`${model.id}\` does not take images`);
  return null;
}

/** The catalog models named, in order: an unknown one in `models` is the client's mistake, named as the field. */
async function named(ports: CatalogPorts, ids: readonly string[], fromAlias: boolean): Promise<Model[]> {
  const models: Model[] = [];
  for (const id of ids) {
    const model = await ports.findModel(id);
    // An alias's target the catalog no longer has is the operator's to fix: skipped, as a disabled one.
    if (model) models.push(model);
    else if (!fromAlias) throw new AppError("invalid_request_error", `Invalid request: models names \`${id}\`, which is not a catalog model`, { param: "models" });
  }
  return models;
}

/**
 * The candidates of a request that names an alias or lists `models` (a request for one enabled
 * model is `single`'s). A candidate is skipped when it is disabled, its context window cannot
 * hold the request's estimated prompt, or it cannot take the request's tools or images; with
 * none left, the first one's own error is thrown.
 */
export async function candidatesOf(ports: CatalogPorts, request: ChatRequest, bodyBytes: number): Promise<Candidates> {
  const alias = request.models === undefined ? await ports.findAlias(request.model) : undefined;
  if (request.models === undefined && alias === undefined) throw notEnabled(request.model);
  // `model` first, then `models`; an ID listed twice is tried once.
  const ids = alias ?? [...new Set([request.model, ...request.models!])];
  const models = await named(ports, ids, alias !== undefined);
  const needs = needsOf(request, bodyBytes);
  const fit = models.filter((model) => unfit(model, needs) === null);
  if (fit.length === 0) throw (models[0] && unfit(models[0], needs)) ?? notEnabled(request.model);
  return { requested: request.model, alias: alias !== undefined, models: fit };
}

/**
 * The candidates this key may use: all of them when it has no model allowlist or its allowlist
 * names the alias asked for, else those it names. Null when none is left: the key's 403 for
 * what was asked, as for one model.
 */
export function allowedFor(candidates: Candidates, key: Pick<ApiKey, "allowedModels">): Candidates | null {
  const allowed = key.allowedModels;
  if (allowed === null || (candidates.alias && allowed.includes(candidates.requested))) return candidates;
  const models = candidates.models.filter((model) => allowed.includes(model.id));
  if (models.length === candidates.models.length) return candidates;
  return models.length > 0 ? { ...candidates, models } : null;
}
