import { AppError } from "../errors.ts";
import { formatUsd, nanos, readUsd, type Nanos } from "../money.ts";
import type { AccountStore } from "../store.ts";
import { creditsShare } from "./chargebacks.ts";
import { CREDIT_PACKS, isPackId } from "./packs.ts";
import { isStripePurchase } from "./purchases.ts";
import type { CheckoutRecord, CheckoutStore } from "./sessions.ts";

// An operator's refund of a purchase (`gateway purchases refund`, the console): checked here,
// made through the payment provider; the ledger moves only when the provider's refund event
// arrives (chargebacks.ts), so a refund made in Stripe's dashboard is followed the same way.

const NANOS_PER_CENT = 10_000_000n;

/** The payment provider's refund API (Stripe's `POST /v1/refunds`), as core needs it. */
export interface RefundProvider {
  refund(input: { paymentIntentId: string; amountCents: bigint; idempotencyKey: string }): Promise<{ id: string; status: string }>;
}

export interface RefundDeps {
  store: Pick<CheckoutStore, "getCheckout"> & Pick<AccountStore, "getAccount">;
  /** Null when no provider is configured (no STRIPE_SECRET_KEY). */
  provider: RefundProvider | null;
}

/** What a refund asked for: the session, and the money to pay back (USD text; absent: all that is left). */
export interface RefundRequest {
  sessionId: string;
  usd?: string | number;
}

const invalid = (message: string) => new AppError("invalid_request_error", message);
const usdOfCents = (cents: bigint) => formatUsd(nanos(cents * NANOS_PER_CENT), 2);

/** The money paid for a purchase, in cents: as Stripe reported it, else (paid before it was kept) the pack's price. */
export function paidCents(purchase: CheckoutRecord): bigint {
  if (purchase.amountPaidCents !== null) return purchase.amountPaidCents;
  return isPackId(purchase.packId) ? BigInt(CREDIT_PACKS[purchase.packId].priceUsd) * 100n : 0n;
}

/** The refund's amount in cents: what `usd` says, a positive whole number of cents no more than `left`; all of `left` without it. */
function refundCents(usd: RefundRequest["usd"], left: bigint): bigint {
  if (usd === undefined) return left;
  const read = readUsd(usd);
  if (!read.ok || read.amount <= 0n) throw invalid(`The amount to refund must be a positive USD amount (got "${usd}")`);
  if (read.amount % NANOS_PER_CENT !== 0n) throw invalid("The amount to refund must be whole cents");
  const cents = read.amount / NANOS_PER_CENT;
  if (cents > left) throw invalid(`At most ${usdOfCents(left)} USD of this purchase is left to refund`);
  return cents;
}

/**
 * Refunds `usd` of a paid purchase (all that is left of it by default) through the provider,
 * only while the credits it takes back are unspent: the account's available balance (less
 * open reservations) must cover that share of the purchase's credits, computed as the refund
 * event will compute it. A refused refund asks nothing of the provider.
 */
export async function refundPurchase(deps: RefundDeps, request: RefundRequest) {
  const purchase = isStripePurchase({ id: request.sessionId }) ? await deps.store.getCheckout(request.sessionId) : null;
  if (!purchase) throw new AppError("not_found", `No purchase ${request.sessionId}`);
  if (purchase.status !== "paid" || purchase.paymentIntentId === null) {
    throw invalid(`Purchase ${purchase.id} has no payment to refund (${purchase.status === "paid" ? "its payment was not recorded" : purchase.status})`);
  }
  const paid = paidCents(purchase);
  const left = paid - purchase.refundedCents;
  if (left <= 0n) throw invalid(`Purchase ${purchase.id} is already refunded in full`);
  const cents = refundCents(request.usd, left);
  const takes = nanos(creditsShare(purchase.credits, purchase.refundedCents + cents, paid) - purchase.refundedCredits);
  const account = await deps.store.getAccount(purchase.accountId);
  const available = account ? nanos(account.balance - account.reserved) : nanos(0);
  if (available < takes) {
    throw new AppError("conflict",
      `Refusing to refund ${usdOfCents(cents)} USD: it takes back ${formatUsd(takes, 6)} USD of credits, `
      + `but only ${formatUsd(available < 0n ? nanos(0) : available, 6)} USD of the account's credits are unspent`);
  }
  if (deps.provider === null) throw new AppError("unavailable", "Stripe is not configured (STRIPE_SECRET_KEY)");
  // The same refund asked twice before Stripe's event arrives is one refund at Stripe.
  const idempotencyKey = `refund_${purchase.id}_${purchase.refundedCents}_${cents}`;
  const refund = await deps.provider.refund({ paymentIntentId: purchase.paymentIntentId, amountCents: cents, idempotencyKey });
  return {
    sessionId: purchase.id,
    refundId: refund.id,
    status: refund.status,
    refundedUsd: usdOfCents(cents),
    creditsTakenBackUsd: formatUsd(takes, 9),
    accountId: purchase.accountId,
  };
}
