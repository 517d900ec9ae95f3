// GET /v1/models and /v1/models/{id} in OpenAI's shape, for SDKs' `models.list()` and
// `models.retrieve()`: the enabled catalog, no key needed. A key kept to some models sees only
// those; any other key sent (unknown, revoked, malformed) is ignored, as no key would be.
import { Elysia } from "elysia";
import type { Model } from "../../../core/catalog.ts";
import { AppError } from "../../../core/errors.ts";
import { keyRefusal } from "../../../core/keys/auth.ts";
import { hashKey, looksLikeKey } from "../../../core/keys/secret.ts";
import type { KeyStore } from "../../../core/store.ts";
import { bearerToken } from "../../bearer.ts";
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

/** The models a request's key may use: every one, unless a valid key sent with it is kept to some. */
async function visibleModels(store: KeyStore, authorization: string | null, now: number): Promise<(model: Model) => boolean> {
  const token = bearerToken(authorization);
  const found = token !== undefined && looksLikeKey(token) ? await store.findKeyByHash(hashKey(token)) : null;
  const allowed = found && !keyRefusal(found, now) ? found.key.allowedModels : null;
  return (model) => model.enabled && (allowed === null || allowed.includes(model.id));
}

export const openAiModelRoutes = (catalog: CatalogCache, store: KeyStore, now: () => number) =>
  new Elysia({ name: "openai-models" })
    .get("/v1/models", async ({ request }) => {
      const visible = await visibleModels(store, request.headers.get("authorization"), now());
      return json({ object: "list", data: (await catalog.list()).filter(visible).map(entry) });
    })
    .get("/v1/models/:id", async ({ params, request }) => {
      const model = await catalog.find(params.id);
      const visible = await visibleModels(store, request.headers.get("authorization"), now());
      return model && visible(model) ? json(entry(model)) : unknownModel(params.id);
    })
    .all("/v1/models", methodNotAllowed(chatError, "GET"))
    .all("/v1/models/:id", methodNotAllowed(chatError, "GET"));
