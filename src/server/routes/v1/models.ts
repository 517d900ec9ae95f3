// GET /v1/models and /v1/models/{id} in OpenAI's shape, for SDKs' `models.list()` and
// `models.retrieve()`: the enabled catalog and the operator's aliases, no key needed. A key kept
// to some models sees only those (and the aliases it may use); any other key sent (unknown,
// revoked, malformed) is ignored, as no key would be.
import { Elysia } from "elysia";
import type { ModelAlias } from "../../../core/aliases.ts";
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

/** An alias is the gateway's own: no one provider owns it. */
const aliasEntry = (a: ModelAlias) => ({ id: a.name, object: "model", created: CATALOG_CREATED, owned_by: "gateway" });

const unknownModel = (id: string) =>
  chatError(new AppError("unknown_resource", `The model \`${id}\` does not exist or is not enabled`));

interface Visible {
  model(model: Model): boolean;
  /** An alias is listed when the key may use it: it names the alias, or one of its enabled models. */
  alias(alias: ModelAlias): boolean;
}

/** The models a request's key may use: every one, unless a valid key sent with it is kept to some. */
async function visibleTo(store: KeyStore, catalog: CatalogCache, authorization: string | null, now: number): Promise<Visible> {
  const token = bearerToken(authorization);
  const found = token !== undefined && looksLikeKey(token) ? await store.findKeyByHash(hashKey(token)) : null;
  const allowed = found && !keyRefusal(found, now) ? found.key.allowedModels : null;
  const model = (m: Model) => m.enabled && (allowed === null || allowed.includes(m.id));
  const enabled = new Map((await catalog.list()).filter((m) => m.enabled).map((m) => [m.id, m]));
  const alias = (a: ModelAlias) => {
    const servable = a.models.filter((id) => enabled.has(id));
    return servable.length > 0 && (allowed === null || allowed.includes(a.name) || servable.some((id) => allowed.includes(id)));
  };
  return { model, alias };
}

export const openAiModelRoutes = (catalog: CatalogCache, store: KeyStore, now: () => number) =>
  new Elysia({ name: "openai-models" })
    .get("/v1/models", async ({ request }) => {
      const visible = await visibleTo(store, catalog, request.headers.get("authorization"), now());
      const models = (await catalog.list()).filter(visible.model).map(entry);
      const aliases = (await catalog.aliases()).filter(visible.alias).map(aliasEntry);
      return json({ object: "list", data: [...models, ...aliases] });
    })
    .get("/v1/models/:id", async ({ params, request }) => {
      const visible = await visibleTo(store, catalog, request.headers.get("authorization"), now());
      const model = await catalog.find(params.id);
      if (model) return visible.model(model) ? json(entry(model)) : unknownModel(params.id);
      const alias = (await catalog.aliases()).find((a) => a.name === params.id);
      return alias && visible.alias(alias) ? json(aliasEntry(alias)) : unknownModel(params.id);
    })
    .all("/v1/models", methodNotAllowed(chatError, "GET"))
    .all("/v1/models/:id", methodNotAllowed(chatError, "GET"));
