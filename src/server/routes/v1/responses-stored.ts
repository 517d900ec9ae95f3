// The stored responses of the key's account, as OpenAI serves them
// (platform.openai.com/docs/api-reference/responses): GET and DELETE /v1/responses/{id}, and
// GET /v1/responses/{id}/input_items. Another account's id is told exactly as an unknown one.
import { Elysia } from "elysia";
import { AppError, isAppError } from "../../../core/errors.ts";
import { listedItem, lookable, parseItemsPage } from "../../../core/responses/stored.ts";
import { authenticateApiKey } from "../../api-key.ts";
import { clientIp, type PeerSource } from "../../client-ip.ts";
import { databaseDeadline, type ChatDeps } from "../../chat/front-door.ts";
import { guarded } from "../../chat/database-guard.ts";
import { chatError, json, methodNotAllowed } from "../../http.ts";
import { withFields } from "../../log.ts";
import { requestRecord } from "../../observability/plugin.ts";

type Fields = Record<string, unknown>;

const notFound = (id: string) => new AppError("unknown_resource", `No response found with id '${id}'.`);

type Handler = (accountId: string, id: string, query: Record<string, string | undefined>) => Promise<unknown>;

export function storedResponsesRoutes(deps: ChatDeps) {
  const { store, now } = deps;
  /** The key's account's answer, or the error in the chat shape; database failures are a 503. */
  type Context = { request: Request; server: PeerSource; params: { id: string }; query: Record<string, string | undefined> };
  const serve = (handle: Handler) => async ({ request, server, params, query }: Context) => {
    const log = withFields(deps.log, { requestId: requestRecord(request).id });
    const guard = <T>(work: Promise<T>) => guarded(work, log, databaseDeadline(deps.config));
    try {
      // A key kept to an office's network reads its conversations from there only.
      const use = { model: null, clientIp: () => clientIp(request, server, deps.config.trustProxy) };
      const caller = await guard(authenticateApiKey(store, request.headers.get("authorization"), now(), use));
      if (!lookable(params.id)) throw notFound(params.id);
      return json(await guard(handle(caller.account.id, params.id, query) as Promise<unknown>));
    } catch (error) {
      if (isAppError(error)) return chatError(error);
      log.error("unhandled error on a stored response", { error });
      return chatError(new AppError("internal", "Internal server error"));
    }
  };

  const read: Handler = async (accountId, id) => (await store.storedResponse(accountId, id, now())) ?? Promise.reject(notFound(id));
  const remove: Handler = async (accountId, id) => {
    if (!(await store.deleteStoredResponse(accountId, id, now()))) throw notFound(id);
    return { id, object: "response", deleted: true };
  };
  const inputItems: Handler = async (accountId, id, query) => {
    const page = await store.responseInputItems(accountId, id, now(), parseItemsPage(query));
    if (!page) throw notFound(id);
    const ids = page.items.map((item: Fields) => item.id ?? null);
    return { object: "list", data: page.items.map(listedItem), first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null, has_more: page.hasMore };
  };

  return new Elysia({ name: "stored-responses" })
    .get("/v1/responses/:id", serve(read))
    .delete("/v1/responses/:id", serve(remove))
    .all("/v1/responses/:id", methodNotAllowed(chatError, "GET, DELETE"))
    .get("/v1/responses/:id/input_items", serve(inputItems))
    .all("/v1/responses/:id/input_items", methodNotAllowed(chatError, "GET"));
}
