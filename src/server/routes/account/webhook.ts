import { Elysia } from "elysia";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { MESSAGES } from "../../../core/errors.ts";
import type { AccountCaller } from "../../../core/keys/management.ts";
import { redeliverEvent, sendTestEvent } from "../../../core/webhooks/deliveries.ts";
import { setWebhook, webhookView } from "../../../core/webhooks/endpoint.ts";
import { systemResolver } from "../../alerts/webhook-poster.ts";
import type { AppDeps } from "../../deps.ts";
import { json, methodNotAllowed, plainError } from "../../http.ts";
import { readObjectBody } from "../../object-body.ts";
import { accountCallerPlugin } from "../../session.ts";
import { assertManager } from "../../../core/orgs/roles.ts";

/**
 * The account's webhook endpoint: set it (its secret shown once), read it with its recent
 * deliveries, remove it; send it a test event, or an event again.
 */
export const webhookSettingsRoutes = (deps: AppDeps) => {
  const { store, now, config, wakeMailer } = deps;
  const account = (caller: AccountCaller) => signedInAccount(caller, MESSAGES.accountNotFound);
  return new Elysia({ name: "webhook-settings" })
    .all("/settings/webhook", methodNotAllowed(plainError, "GET, PUT, DELETE"))
    .all("/settings/webhook/test", methodNotAllowed(plainError, "POST"))
    .all("/settings/webhook/deliveries/:eventId/redeliver", methodNotAllowed(plainError, "POST"))
    .use(accountCallerPlugin(deps))
    .get("/settings/webhook", async ({ session }) => {
      assertManager(session.org);
      return json(await webhookView(store, account(session).id));
    })
    .put(
      "/settings/webhook",
      async ({ session, request }) => {
        assertManager(session.org);
        const { id } = account(session);
        const body = await readObjectBody(request);
        const input = { accountId: id, body, allowPrivate: config.webhookAllowPrivate, resolve: deps.resolveHost ?? systemResolver, now: now() };
        return json(await setWebhook(store, input));
      },
      { parse: "none" },
    )
    // Removing what is not there is no error: the account ends with no endpoint either way.
    .delete("/settings/webhook", async ({ session }) => {
      assertManager(session.org);
      await store.removeWebhookEndpoint(account(session).id);
      return json({ success: true });
    }, { parse: "none" })
    // Queued in the outbox like any event, which is woken so that it goes now, not at the next round.
    .post("/settings/webhook/test", async ({ session }) => {
      assertManager(session.org);
      const sent = await sendTestEvent(store, account(session).id, now());
      wakeMailer?.();
      return json(sent);
    }, { parse: "none" })
    .post("/settings/webhook/deliveries/:eventId/redeliver", async ({ session, params }) => {
      assertManager(session.org);
      const delivery = await redeliverEvent(store, account(session).id, params.eventId, now());
      wakeMailer?.();
      return json(delivery);
    }, { parse: "none" });
};
