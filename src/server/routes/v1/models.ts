// GET /v1/models and /v1/models/{id} in OpenAI's shape, for SDKs' `models.list()` and
// `models.retrieve()`: the enabled catalog, no key needed (one sent is ignored).
import { Elysia } from "elysia";
import type { Model } from "../../../core/catalog.ts";
import { AppError } from "../../../core/errors.ts";
import type { CatalogCache } from "../../catalog-cache.ts";
import { chatError, json, methodNotAllowed } from "../../http.ts";

/**
 * `created` of every catalog model: the catalog does not record when a provider released a
 * model, and OpenAI's clients only need an integer timestamp (2026-01-01T00:00:00Z).
 */
const CATALOG_CREATED = 1_767_225_600;

const entry = (m: Model) => ({ id: m.id, object: "model", created: CATALOG_CREATED, owned_by: m.provider });

const unknownModel = (id: string) =>
  chatError(new AppError("unknown_resource", `The model \`${id}\` does not exist or is not enabled`));

export const openAiModelRoutes = (catalog: CatalogCache) =>
  new Elysia({ name: "openai-models" })
    .get("/v1/models", async () => json({ object: "list", data: (await catalog.list()).filter((m) => m.enabled).map(entry) }))
    .get("/v1/models/:id", async ({ params }) => {
      const model = await catalog.find(params.id);
      return model?.enabled ? json(entry(model)) : unknownModel(params.id);
    })
    .all("/v1/models", methodNotAllowed(chatError, "GET"))
    .all("/v1/models/:id", methodNotAllowed(chatError, "GET"));
