import { Elysia } from "elysia";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { startCheckout, type CheckoutDeps } from "../../../core/checkout/sessions.ts";
import { MESSAGES } from "../../../core/errors.ts";
import type { AppDeps } from "../../deps.ts";
import { json, methodNotAllowed, plainError } from "../../http.ts";
import { readObjectBody } from "../../object-body.ts";
import { stripeCheckout, stripeClient } from "../../payments/stripe.ts";
import { accountCallerPlugin } from "../../session.ts";
import { assertManager } from "../../../core/orgs/roles.ts";

/** `POST /checkout {packId}`: a Stripe Checkout Session for a credit pack, answered `{url, sessionId}`. */
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
    .use(accountCallerPlugin(deps))
    .post(
      "/checkout",
      async ({ session, request }) => {
        assertManager(session.org);
        const account = signedInAccount(session, MESSAGES.userNotFound);
        return json(await startCheckout(checkout, { accountId: account.id, body: await readObjectBody(request), now: now(), orgId: session.org?.id }));
      },
      { parse: "none" },
    );
};
