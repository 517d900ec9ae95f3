import { Elysia } from "elysia";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { autoTopupView, parseAutoTopup } from "../../../core/checkout/auto-topup.ts";
import { CREDIT_PACKS } from "../../../core/checkout/packs.ts";
import { formatUsd } from "../../../core/money.ts";
import { MESSAGES } from "../../../core/errors.ts";
import { assertManager } from "../../../core/orgs/roles.ts";
import type { AccountCaller } from "../../../core/keys/management.ts";
import type { AppDeps } from "../../deps.ts";
import { json, methodNotAllowed, plainError } from "../../http.ts";
import { readObjectBody } from "../../object-body.ts";
import type { AutoTopupWatch } from "../../payments/auto-topup-watch.ts";
import { accountCallerPlugin } from "../../session.ts";
import { clientIp, type PeerSource } from "../../client-ip.ts";

/**
 * `/settings/auto-topup`: the account's automatic top-up. `PUT` turns it on (the next purchase
 * saves the card), `GET` shows it and the saved card, `DELETE` turns it off and forgets the
 * card. As buying packs, an organization's is its owners' and admins'.
 */
export const autoTopupRoutes = (deps: AppDeps, watch: AutoTopupWatch) => {
  const { config, store, now } = deps;
  const account = (session: AccountCaller) => {
    assertManager(session.org);
    return signedInAccount(session, MESSAGES.accountNotFound);
  };
  const audit = (accountId: string, type: "auto_topup_set" | "auto_topup_off", detail: string, request: Request, server: PeerSource) =>
    store.recordAudit({ accountId, type, detail, ip: clientIp(request, server, config.trustProxy), at: now() });

  return new Elysia({ name: "auto-topup" })
    .all("/settings/auto-topup", methodNotAllowed(plainError, "GET, PUT, DELETE"))
    .use(accountCallerPlugin(deps))
    .get("/settings/auto-topup", async ({ session }) => json(autoTopupView(await store.getAutoTopup(account(session).id))))
    .put(
      "/settings/auto-topup",
      async ({ session, request, server }) => {
        const { id } = account(session);
        const settings = parseAutoTopup(await readObjectBody(request), config.stripe.prices);
        const saved = await store.putAutoTopup(id, settings, now());
        await watch.refresh();
        const pack = CREDIT_PACKS[settings.packId];
        await audit(id, "auto_topup_set", `${pack.name} pack below ${formatUsd(settings.threshold, 2)} USD, at most ${formatUsd(settings.monthlyMax, 2)} USD a month`, request, server);
        return json(autoTopupView(saved));
      },
      { parse: "none" },
    )
    .delete("/settings/auto-topup", async ({ session, request, server }) => {
      const { id } = account(session);
      if (await store.deleteAutoTopup(id)) {
        await watch.refresh();
        await audit(id, "auto_topup_off", "automatic top-up turned off and the saved card forgotten", request, server);
      }
      return json(autoTopupView(null));
    });
};
