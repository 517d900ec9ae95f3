import { AppError, MESSAGES } from "../errors.ts";
import type { Nanos } from "../money.ts";
import type { AutoTopupStore } from "./auto-topup.ts";
import { CREDIT_PACKS, isPackId, type CreditPack, type PackId } from "./packs.ts";

/** Stripe Checkout Sessions stay open 24 hours; an open one holds its credits against the capacity that long. */
export const CHECKOUT_OPEN_MS = 24 * 60 * 60 * 1000;
/**
 * How long capacity is held while Stripe is asked for the session. Longer than the Stripe
 * client's timeout with its retries, so a live request keeps its hold; a crashed one's lapses.
 */
export const CHECKOUT_HOLD_MS = 5 * 60 * 1000;

/** `open` until paid, or closed by Stripe as `expired` (never paid) or `failed` (a delayed payment failed). */
export type CheckoutStatus = "open" | "paid" | "expired" | "failed";

/** A paid purchase's chargeback: `open` while its credits are held, then `won` (given back) or `lost` (kept taken). */
export type DisputeStatus = "open" | "won" | "lost";

/** A checkout session as the gateway recorded it. */
export interface CheckoutRecord {
  id: string;
  accountId: string;
  packId: string;
  credits: Nanos;
  status: CheckoutStatus;
  createdAt: number;
  expiresAt: number;
  paidAt: number | null;
  /** Stripe's receipt for the payment; null until Stripe gives one. */
  receiptUrl: string | null;
  /** The payment's PaymentIntent and amount (cents), as Stripe reported them when it was paid; null before. */
  paymentIntentId: string | null;
  amountPaidCents: bigint | null;
  /** Money refunded so far (cents), and the credits taken back for it. */
  refundedCents: bigint;
  refundedCredits: Nanos;
  /** The payment's dispute: the money disputed (cents) and how it stands; null without one. */
  disputedCents: bigint | null;
  disputeStatus: DisputeStatus | null;
  /** An automatic top-up's off-session payment (its id the PaymentIntent's), rather than a Checkout Session. */
  autoTopup: boolean;
  /** Stripe's invoice (STRIPE_INVOICES=on) and its hosted page; null without one. */
  invoiceId: string | null;
  invoiceUrl: string | null;
  /** Stripe's hosted checkout page, where the buyer pays while the session is open; null for a hold or a top-up. */
  checkoutUrl: string | null;
}

export interface CheckoutHold {
  accountId: string;
  pack: Pick<CreditPack, "id" | "credits">;
  /** Credits that may be sold per UTC month; null for no cap. */
  capacity: Nanos | null;
  /** Start of the current UTC month: paid purchases since then count. */
  monthStart: number;
  /** Open checkouts created after this (and not yet expired) count. */
  openedSince: number;
  holdExpiresAt: number;
  now: number;
}

export interface CheckoutStore {
  /**
   * Records an open checkout of `pack` under a provisional id, unless the credits of this
   * month's paid purchases and of the open checkouts, plus the pack's, would exceed the
   * capacity. The count and the insert are atomic across instances.
   */
  holdCheckout(input: CheckoutHold): Promise<{ holdId: string } | { exhausted: true }>;
  /** Gives a hold the id, expiry and hosted page of the Stripe session created for it. */
  openCheckout(holdId: string, session: { id: string; expiresAt: number; url: string }): Promise<void>;
  /** Marks a still-open session `expired` (the buyer cancelled it); a session no longer open is left as it is. */
  expireCheckout(id: string): Promise<void>;
  /** Removes a hold whose session could not be created, giving its capacity back. */
  dropCheckoutHold(holdId: string): Promise<void>;
  /** One checkout session by its id, or null. */
  getCheckout(id: string): Promise<CheckoutRecord | null>;
  /** The account's checkout sessions, newest first; only the paid ones when `paidOnly`. */
  listCheckouts(accountId: string, options: { paidOnly: boolean }): Promise<CheckoutRecord[]>;
}

export interface ReceiptStore {
  /** Keeps Stripe's receipt link of a paid purchase. */
  setReceiptUrl(purchaseId: string, url: string): Promise<void>;
  /** Keeps the invoice Stripe issued for a paid purchase, and its hosted page when Stripe gave it. */
  setInvoice(purchaseId: string, invoice: { id: string; url: string | null }): Promise<void>;
}

export interface NewHostedCheckout {
  priceId: string;
  accountId: string;
  packId: PackId;
  successUrl: string;
  cancelUrl: string;
  /** Makes the provider's retries of one request create one session. */
  idempotencyKey: string;
  /**
   * Save the card for automatic top-up (on, or being set up): under the account's provider
   * customer when it has one, else a new one. Null: the card is not kept.
   */
  saveCard: { customerId: string | null } | null;
  /** Collect billing details and tax IDs and issue an invoice (STRIPE_INVOICES=on). */
  invoices: boolean;
}

/** A session on the provider's hosted checkout page. */
interface HostedCheckout {
  id: string;
  url: string;
  /** Epoch ms; null when the provider did not say. */
  expiresAt: number | null;
}

/** A hosted session's state at the provider: `complete` once paid (or being paid by a delayed method). */
export type HostedCheckoutStatus = "open" | "complete" | "expired";

/** The payment provider (Stripe), as core needs it. */
export interface CheckoutProvider {
  createSession(input: NewHostedCheckout): Promise<HostedCheckout>;
  /**
   * Expires an open session so that it can no longer be paid, and answers its state afterwards:
   * `expired`, or the state that kept it from expiring. Throws when the provider cannot be asked.
   */
  expireSession(id: string): Promise<HostedCheckoutStatus>;
}

export interface CheckoutDeps {
  store: CheckoutStore & Pick<AutoTopupStore, "getAutoTopup">;
  /** Null when no provider is configured (no STRIPE_SECRET_KEY). */
  provider: CheckoutProvider | null;
  /** The provider's price per pack; a pack without one is not for sale. */
  prices: Record<PackId, string | undefined>;
  capacity: Nanos | null;
  dashboardUrl: string;
  invoices: boolean;
}

/** The pack named by the body's `packId`, or the spec's 400 `Invalid pack ID`. */
export function checkoutPack(body: Record<string, unknown>): CreditPack {
  if (!isPackId(body.packId)) throw new AppError("invalid_request_error", MESSAGES.invalidPack);
  return CREDIT_PACKS[body.packId];
}

/** Start of the UTC calendar month that contains `now`, epoch ms. */
export function utcMonthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** True when `credits` more can be sold: committed plus them may reach the cap but not pass it. */
export const fitsCapacity = (capacity: Nanos | null, committed: Nanos, credits: Nanos): boolean =>
  capacity === null || committed + credits <= capacity;

/**
 * Where Stripe sends the buyer back: the dashboard's top-up page, told how it went, for the
 * organization the pack was bought for (`org`), if any. Stripe replaces `{CHECKOUT_SESSION_ID}`
 * with the session's id.
 */
const checkoutReturnUrls = (dashboardUrl: string, orgId: string | undefined) => {
  const org = orgId === undefined ? "" : `&org=${encodeURIComponent(orgId)}`;
  return {
    successUrl: `${dashboardUrl}/topup?checkout=success&session_id={CHECKOUT_SESSION_ID}${org}`,
    cancelUrl: `${dashboardUrl}/topup?checkout=cancelled${org}`,
  };
};

/**
 * `POST /checkout`: checks the pack (400), its price (503) and the monthly capacity (409),
 * holding the capacity before asking the provider so that two buyers cannot both take the
 * last of it, then creates the hosted session (500 when that fails) and records it.
 */
export async function startCheckout(
  deps: CheckoutDeps,
  input: { accountId: string; body: Record<string, unknown>; now: number; orgId?: string },
): Promise<{ url: string; sessionId: string }> {
  const { store, provider } = deps;
  const { accountId, now } = input;
  const pack = checkoutPack(input.body);
  const priceId = deps.prices[pack.id];
  if (provider === null || priceId === undefined) throw new AppError("unavailable", MESSAGES.packNotConfigured);

  const hold = await store.holdCheckout({
    accountId, pack, capacity: deps.capacity, monthStart: utcMonthStart(now), openedSince: now - CHECKOUT_OPEN_MS,
    holdExpiresAt: now + CHECKOUT_HOLD_MS, now,
  });
  if ("exhausted" in hold) throw new AppError("conflict", MESSAGES.capacityExhausted);

  const topup = await store.getAutoTopup(accountId);
  const saveCard = topup?.enabled ? { customerId: topup.card?.customerId ?? null } : null;
  let session: HostedCheckout;
  try {
    session = await provider.createSession({
      priceId, accountId, packId: pack.id, ...checkoutReturnUrls(deps.dashboardUrl, input.orgId), idempotencyKey: hold.holdId,
      saveCard, invoices: deps.invoices,
    });
  } catch {
    // If the hold cannot be dropped either, it lapses by itself at holdExpiresAt.
    await store.dropCheckoutHold(hold.holdId).catch(() => {});
    throw new AppError("internal", MESSAGES.checkoutFailed);
  }
  await store.openCheckout(hold.holdId, { id: session.id, expiresAt: session.expiresAt ?? now + CHECKOUT_OPEN_MS, url: session.url });
  return { url: session.url, sessionId: session.id };
}
