import { Elysia } from "elysia";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { cancelPurchase } from "../../../core/checkout/cancel.ts";
import { startCheckout, type CheckoutDeps } from "../../../core/checkout/sessions.ts";
import { MESSAGES } from "../../../core/errors.ts";
import type { AppDeps } from "../../deps.ts";
import { json, methodNotAllowed, plainError } from "../../http.ts";
import { readObjectBody } from "../../object-body.ts";
import { stripeCheckout, stripeClient } from "../../payments/stripe.ts";
import { accountCallerPlugin } from "../../session.ts";
import { assertManager } from "../../../core/orgs/roles.ts";

/**
 * `POST /checkout {packId}`: a Stripe Checkout Session for a credit pack, answered `{url, sessionId}`;
 * `POST /account/purchases/{id}/cancel`: one of the account's open sessions expired at Stripe,
 * answered as `GET /account/purchases` lists it. Both for owners and admins of an organization.
 */
export const checkoutRoutes = (deps: AppDeps) => {
  const { config, store, log, now } = deps;
  const stripe = stripeClient(config.stripe);
  const checkout: CheckoutDeps = {
    store,
    provider: stripe === null ? null : stripeCheckout(stripe, log),
    prices: config.stripe.prices,
    capacity: config.purchaseCapacity,
    dashboardUrl: config.dashboardUrl,
    invoices: config.stripe.invoices,
  };
  return new Elysia({ name: "checkout" })
    .all("/checkout", methodNotAllowed(plainError, "POST"))
    .all("/account/purchases/:id/cancel", methodNotAllowed(plainError, "POST"))
    .use(accountCallerPlugin(deps))
    .post(
      "/checkout",
      async ({ session, request }) => {
        assertManager(session.org);
        const account = signedInAccount(session, MESSAGES.userNotFound);
        return json(await startCheckout(checkout, { accountId: account.id, body: await readObjectBody(request), now: now(), orgId: session.org?.id }));
      },
      { parse: "none" },
    )
    .post(
      "/account/purchases/:id/cancel",
      async ({ session, params }) => {
        assertManager(session.org);
        const account = signedInAccount(session, MESSAGES.accountNotFound);
        return json(await cancelPurchase(checkout, { accountId: account.id, purchaseId: params.id, now: now() }));
      },
      { parse: "none" },
    );
};
