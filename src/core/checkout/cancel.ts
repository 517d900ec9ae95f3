import { AppError } from "../errors.ts";
import { isStripePurchase, listedPurchase } from "./purchases.ts";
import type { CheckoutProvider, CheckoutRecord, CheckoutStatus, CheckoutStore, HostedCheckoutStatus } from "./sessions.ts";

export const PURCHASE_NOT_FOUND = "Purchase not found";
export const CANCEL_FAILED = "Stripe could not cancel this checkout. Nothing was changed; please try again.";
const NOT_OPEN: Record<Exclude<CheckoutStatus, "open">, string> = {
  paid: "This purchase is paid and cannot be cancelled",
  expired: "This checkout has already expired or been cancelled",
  failed: "This purchase's payment failed; there is nothing to cancel",
};
const AUTO_TOPUP = "An automatic top-up cannot be cancelled";
/** Stripe has the payment (perhaps a bank debit still clearing) but its webhook has not arrived yet. */
const COMPLETED_AT_STRIPE = "This checkout was completed at Stripe and cannot be cancelled; it shows as paid once Stripe confirms the payment";
const NOT_CONFIGURED = "Payments are not configured. Please contact support.";

export interface CancelDeps {
  store: Pick<CheckoutStore, "getCheckout" | "expireCheckout">;
  /** Null when no provider is configured (no STRIPE_SECRET_KEY). */
  provider: Pick<CheckoutProvider, "expireSession"> | null;
}

/** 409 with the reason, for a purchase that is no longer an open checkout. */
function refuseUnlessOpen(purchase: CheckoutRecord): void {
  if (purchase.status !== "open") throw new AppError("conflict", NOT_OPEN[purchase.status]);
  if (purchase.autoTopup) throw new AppError("conflict", AUTO_TOPUP);
}

/**
 * `POST /account/purchases/{id}/cancel`: expires the caller's open Checkout Session at the
 * provider, so it can no longer be paid, then marks it `expired` (its capacity is given back,
 * and Stripe's later `checkout.session.expired` finds nothing open to close). Another account's
 * purchase is answered as missing (404); one no longer open is 409; the provider failing is 502
 * with nothing changed. A session the provider says is already expired is marked so; one it
 * says is complete is never marked: its payment's webhook decides.
 */
export async function cancelPurchase(deps: CancelDeps, input: { accountId: string; purchaseId: string; now: number }) {
  const { store, provider } = deps;
  const found = await store.getCheckout(input.purchaseId);
  // A hold that never reached Stripe is no purchase, as GET /account/purchases does not list it.
  if (!found || found.accountId !== input.accountId || !isStripePurchase(found)) throw new AppError("not_found", PURCHASE_NOT_FOUND);
  refuseUnlessOpen(found);
  if (provider === null) throw new AppError("unavailable", NOT_CONFIGURED);

  let atProvider: HostedCheckoutStatus;
  try {
    atProvider = await provider.expireSession(found.id);
  } catch {
    throw new AppError("provider_error", CANCEL_FAILED);
  }
  if (atProvider === "open") throw new AppError("provider_error", CANCEL_FAILED);
  if (atProvider === "expired") await store.expireCheckout(found.id);
  // Read again: a webhook may have closed or paid the session while the provider was asked.
  const current = (await store.getCheckout(found.id)) ?? found;
  if (atProvider === "complete") {
    refuseUnlessOpen(current);
    throw new AppError("conflict", COMPLETED_AT_STRIPE);
  }
  return listedPurchase(current, input.now);
}
