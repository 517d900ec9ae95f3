import { Elysia } from "elysia";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { AppError, MESSAGES } from "../../../core/errors.ts";
import {
  issueKey, KEY_ROTATED, keyCreatedView, keyListView, parseKeyChange, parseNewKey, revokeKey, rotateKey, type Parsed,
} from "../../../core/keys/rules.ts";
import type { AppDeps } from "../../deps.ts";
import { clientIp } from "../../client-ip.ts";
import { json, methodNotAllowed, plainError } from "../../http.ts";
import { readObjectBody } from "../../object-body.ts";
import { sessionPlugin, type Session } from "../../session.ts";

/** The spec's key validation error: `{ error: "validation error", message: "<field> <why>" }`. */
const validationError = (refused: Extract<Parsed<unknown>, { ok: false }>) =>
  json({ error: MESSAGES.keyValidation, message: `${refused.field} ${refused.reason}` }, 400);

/** The dashboard's API keys: generate, list, edit, rotate, revoke. Another user's key is treated as missing. */
export const keyRoutes = (deps: AppDeps) => {
  const { store, now, config } = deps;
  const account = (session: Session) => signedInAccount(session, MESSAGES.accountNotFound);
  const actor = (request: Request, server: Parameters<typeof clientIp>[1]) => ({ ip: clientIp(request, server, config.trustProxy) });

  type RevokeContext = { session: Session; params: { keyId: string }; request: Request; server: Parameters<typeof clientIp>[1] };
  const revoke = async ({ session, params, request, server }: RevokeContext) => {
    const at = now();
    const key = await revokeKey(store, account(session).id, params.keyId, at, actor(request, server));
    if (!key) throw new AppError("not_found", MESSAGES.keyNotFound);
    return json(keyListView(key, at));
  };

  return new Elysia({ name: "keys" })
    .all("/keys/generate", methodNotAllowed(plainError, "GET, POST"))
    .all("/keys/:keyId", methodNotAllowed(plainError, "PATCH, DELETE"))
    .all("/keys/:keyId/rotate", methodNotAllowed(plainError, "POST"))
    .all("/keys/:keyId/revoke", methodNotAllowed(plainError, "DELETE"))
    .use(sessionPlugin(deps))
    .post(
      "/keys/generate",
      async ({ session, request, server }) => {
        const owner = account(session);
        const at = now();
        const parsed = parseNewKey(await readObjectBody(request), at);
        if (!parsed.ok) return validationError(parsed);
        const input = { accountId: owner.id, fields: parsed.value, origin: "dashboard" as const, now: at, ...actor(request, server) };
        const { key, secret } = await issueKey(store, input);
        return json(keyCreatedView(key, secret));
      },
      { parse: "none" },
    )
    .get("/keys/generate", async ({ session }) => {
      const at = now();
      const keys = await store.listKeys(account(session).id);
      return json({ keys: keys.map((key) => keyListView(key, at)) });
    })
    .patch(
      "/keys/:keyId",
      async ({ session, params, request }) => {
        const owner = account(session);
        const at = now();
        const parsed = parseKeyChange(await readObjectBody(request), at);
        if (!parsed.ok) return validationError(parsed);
        const key = await store.updateKey(owner.id, params.keyId, parsed.value);
        if (!key) throw new AppError("permission_error", MESSAGES.keyForbidden);
        return json(keyListView(key, at));
      },
      { parse: "none" },
    )
    .post("/keys/:keyId/rotate", async ({ session, params, request, server }) => {
      const { secret } = await rotateKey(store, account(session).id, params.keyId, now(), actor(request, server));
      return json({ key: secret, message: KEY_ROTATED });
    }, { parse: "none" })
    .delete("/keys/:keyId/revoke", revoke, { parse: "none" })
    .delete("/keys/:keyId", revoke, { parse: "none" });
};
