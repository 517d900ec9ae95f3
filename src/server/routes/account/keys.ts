import { Elysia } from "elysia";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { AppError, MESSAGES } from "../../../core/errors.ts";
import { assertMayIssue, managementKeyMaker, visibleTo, type AccountCaller } from "../../../core/keys/management.ts";
import {
  issueKey, KEY_ROTATED, keyCreatedView, keyListView, knownModels, parseKeyChange, parseKeyKind, parseNewKey, revokeKey, rotateKey,
  type KeyActor, type Parsed,
} from "../../../core/keys/rules.ts";
import { replacedByRotation } from "../../../core/keys/rotation.ts";
import type { AppDeps } from "../../deps.ts";
import { clientIp } from "../../client-ip.ts";
import { json, methodNotAllowed, plainError } from "../../http.ts";
import { readObjectBody } from "../../object-body.ts";
import { accountCallerPlugin } from "../../session.ts";
import { newKeyOwner } from "../../../core/orgs/roles.ts";

/** The spec's key validation error: `{ error: "validation error", message: "<field> <why>" }`. */
const validationError = (refused: Extract<Parsed<unknown>, { ok: false }>) =>
  json({ error: MESSAGES.keyValidation, message: `${refused.field} ${refused.reason}` }, 400);

/**
 * The dashboard's API keys: generate, list, edit, rotate, revoke; by a session or a management
 * key, which sees and acts on the account's API keys only; in an organization a member makes,
 * sees and acts on the keys it owns. Another user's key is treated as missing.
 */
export const keyRoutes = (deps: AppDeps) => {
  const { store, now, config } = deps;
  const account = (caller: AccountCaller) => signedInAccount(caller, MESSAGES.accountNotFound);
  type Server = Parameters<typeof clientIp>[1];
  const actor = (caller: AccountCaller, request: Request, server: Server): KeyActor =>
    ({ ip: clientIp(request, server, config.trustProxy), managementKey: caller.managementKey ?? undefined, person: caller.org?.personEmail ?? undefined });
  /** The id of one of the account's keys that the caller may act on; null when it may not (a script's, a member's). */
  const ownKeyId = async (caller: AccountCaller, keyId: string): Promise<string | null> => {
    if (caller.managementKey === null && !caller.org) return keyId;
    const key = await store.findKey(keyId);
    return key && visibleTo(caller)(key) ? keyId : null;
  };

  type KeyContext = { session: AccountCaller; params: { keyId: string }; request: Request; server: Server };
  const revoke = async ({ session, params, request, server }: KeyContext) => {
    const at = now();
    const keyId = await ownKeyId(session, params.keyId);
    const key = keyId === null ? null : await revokeKey(store, account(session).id, keyId, at, actor(session, request, server));
    if (!key) throw new AppError("not_found", MESSAGES.keyNotFound);
    return json(keyListView(key, at));
  };

  return new Elysia({ name: "keys" })
    .all("/keys/generate", methodNotAllowed(plainError, "GET, POST"))
    .all("/keys/:keyId", methodNotAllowed(plainError, "PATCH, DELETE"))
    .all("/keys/:keyId/rotate", methodNotAllowed(plainError, "POST"))
    .all("/keys/:keyId/revoke", methodNotAllowed(plainError, "DELETE"))
    .use(accountCallerPlugin(deps))
    .post(
      "/keys/generate",
      async ({ session, request, server }) => {
        const owner = account(session);
        const at = now();
        const body = await readObjectBody(request);
        const parsed = parseNewKey(body, at);
        if (!parsed.ok) return validationError(parsed);
        const kind = parseKeyKind(body, parsed.value);
        if (!kind.ok) return validationError(kind);
        const models = await knownModels(parsed.value.allowedModels, store);
        if (!models.ok) return validationError(models);
        assertMayIssue(session, kind.value);
        const ownerId = kind.value === "management" ? managementKeyMaker(session.org) : newKeyOwner(session.org, body.organizationKey);
        const input = { accountId: owner.id, fields: parsed.value, kind: kind.value, origin: "dashboard" as const, ownerId, now: at };
        const { key, secret } = await issueKey(store, { ...input, ...actor(session, request, server) });
        return json(keyCreatedView(key, secret));
      },
      { parse: "none" },
    )
    .get("/keys/generate", async ({ session }) => {
      const at = now();
      const keys = (await store.listKeys(account(session).id)).filter(visibleTo(session));
      // A key a rotation replaced says so (`rotated: true`), so that it is not taken for a second revoked key of that name.
      const rotated = replacedByRotation(keys);
      return json({ keys: keys.map((key) => ({ ...keyListView(key, at), ...(rotated.has(key.id) ? { rotated: true } : {}) })) });
    })
    .patch(
      "/keys/:keyId",
      async ({ session, params, request }) => {
        const owner = account(session);
        const at = now();
        const parsed = parseKeyChange(await readObjectBody(request), at);
        if (!parsed.ok) return validationError(parsed);
        const models = await knownModels(parsed.value.allowedModels, store);
        if (!models.ok) return validationError(models);
        const keyId = await ownKeyId(session, params.keyId);
        const key = keyId === null ? null : await store.updateKey(owner.id, keyId, parsed.value);
        if (!key) throw new AppError("permission_error", MESSAGES.keyForbidden);
        return json(keyListView(key, at));
      },
      { parse: "none" },
    )
    .post("/keys/:keyId/rotate", async ({ session, params, request, server }) => {
      const keyId = await ownKeyId(session, params.keyId);
      if (keyId === null) throw new AppError("not_found", MESSAGES.keyNotFoundOrRevoked);
      const { secret } = await rotateKey(store, account(session).id, keyId, now(), actor(session, request, server));
      return json({ key: secret, message: KEY_ROTATED });
    }, { parse: "none" })
    .delete("/keys/:keyId/revoke", revoke, { parse: "none" })
    .delete("/keys/:keyId", revoke, { parse: "none" });
};
