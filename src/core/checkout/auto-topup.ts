import { AppError, MESSAGES } from "../errors.ts";
import { formatUsd, readUsd, type Nanos } from "../money.ts";
import { CREDIT_PACKS, isPackId, type PackId } from "./packs.ts";

// Automatic top-up: the account's settings and their rules. When a charge takes the balance
// below the threshold, the pack is bought off-session with the card saved at the last purchase
// (auto-topup-run.ts); its credits arrive with Stripe's `payment_intent.succeeded`
// (topup-events.ts), as a Checkout purchase's do.

/** The highest threshold and monthly maximum the settings take, as the other settings have bounds. */
const THRESHOLD_MAX_USD = 10_000;
const MONTHLY_MAX_MAX_USD = 100_000;
/** A claim older than this is taken to be of a process that died before Stripe answered; a new one may be made. */
export const TOPUP_CLAIM_STALE_MS = 60 * 60 * 1000;

/** The card Stripe saved at a purchase, charged off-session later. */
export interface SavedCard {
  customerId: string;
  paymentMethodId: string;
  brand: string | null;
  last4: string | null;
}

export interface AutoTopup {
  accountId: string;
  packId: string;
  threshold: Nanos;
  monthlyMax: Nanos;
  /** False once a decline turned it off; `PUT` turns it on again. */
  enabled: boolean;
  card: SavedCard | null;
  /** When the attempt in flight was claimed; null when none is. */
  pendingSince: number | null;
}

export interface AutoTopupSettings {
  packId: PackId;
  threshold: Nanos;
  monthlyMax: Nanos;
}

/** A claimed attempt: the pack to buy with the saved card, recorded as an open purchase under `holdId` until Stripe names it. */
export interface TopupClaim {
  holdId: string;
  accountId: string;
  packId: PackId;
  amountCents: bigint;
  card: SavedCard;
}

export interface AutoTopupStore {
  getAutoTopup(accountId: string): Promise<AutoTopup | null>;
  /** Turns it on with these settings, keeping a card already saved. */
  putAutoTopup(accountId: string, settings: AutoTopupSettings, now: number): Promise<AutoTopup>;
  /** Turns it off and forgets the card; false when there was nothing to forget. */
  deleteAutoTopup(accountId: string): Promise<boolean>;
  /** Keeps the card of a purchase made while automatic top-up was on (or being set up). */
  saveAutoTopupCard(accountId: string, card: SavedCard, now: number): Promise<void>;
  /** The accounts whose top-up could fire, with their thresholds: on, and with a saved card. */
  listArmedAutoTopups(): Promise<Array<{ accountId: string; threshold: Nanos }>>;
  /**
   * Claims an attempt, atomically across instances: only when it is on with a card, the
   * balance is below the threshold, no other attempt is in flight (or the one in flight is older
   * than `staleBefore`) and this month's top-ups (paid or in flight, from `monthStart`) plus the
   * pack's price stay within the maximum. Records the attempt as an open purchase.
   */
  claimAutoTopup(input: { accountId: string; now: number; monthStart: number; staleBefore: number }): Promise<TopupClaim | null>;
  /** Stripe named the attempt's PaymentIntent: the purchase takes its id, unless its event came first and did so. */
  nameTopup(holdId: string, paymentIntentId: string): Promise<void>;
  /** Stripe could not be asked (network, outage): the attempt is dropped and the claim freed, the setting stays on. */
  dropTopupClaim(claim: TopupClaim): Promise<void>;
}

const invalid = (message: string) => new AppError("invalid_request_error", message);

/** A positive USD amount from a JSON number or decimal string, at most `max`; otherwise a 400 naming `field`. */
function positiveUsd(field: string, value: unknown, max: number): Nanos {
  const expected = `${field} must be a USD amount greater than 0 and at most ${max}`;
  if (typeof value !== "number" && typeof value !== "string") throw invalid(expected);
  const read = readUsd(value);
  if (!read.ok) throw invalid(read.refusal === "precision" ? `${field} must have at most 9 decimal places` : expected);
  if (read.amount <= 0n || read.amount > BigInt(max) * 1_000_000_000n) throw invalid(expected);
  // Whole cents: Stripe charges cents, and the settings are shown as they were set.
  if (read.amount % 10_000_000n !== 0n) throw invalid(`${field} must be whole cents`);
  return read.amount;
}

/**
 * `PUT /settings/auto-topup {packId, thresholdUsd, monthlyMaxUsd}`: a pack on sale (one with a
 * Stripe price), a positive threshold and a monthly maximum of at least the pack's price, so
 * that at least one top-up fits in a month.
 */
export function parseAutoTopup(body: Record<string, unknown>, prices: Record<PackId, string | undefined>): AutoTopupSettings {
  if (!isPackId(body.packId)) throw invalid("packId must be one of builder, pro, team, scale");
  const threshold = positiveUsd("thresholdUsd", body.thresholdUsd, THRESHOLD_MAX_USD);
  const monthlyMax = positiveUsd("monthlyMaxUsd", body.monthlyMaxUsd, MONTHLY_MAX_MAX_USD);
  const pack = CREDIT_PACKS[body.packId];
  if (monthlyMax < packPriceNanos(body.packId)) {
    throw invalid(`monthlyMaxUsd must be at least the ${pack.name} pack's price (${pack.priceUsd} USD)`);
  }
  // As checkout answers for a pack without a Stripe price: the operator's to fix, not the caller's.
  if (prices[body.packId] === undefined) throw new AppError("unavailable", MESSAGES.packNotConfigured);
  return { packId: body.packId, threshold, monthlyMax };
}

/** What a pack costs the buyer, in cents. */
export const packPriceCents = (packId: PackId): bigint => BigInt(CREDIT_PACKS[packId].priceUsd) * 100n;
const packPriceNanos = (packId: PackId): Nanos => (packPriceCents(packId) * 10_000_000n) as Nanos;

/** `GET /settings/auto-topup`: the settings as stored (nulls when never set), and the saved card, if any. */
export function autoTopupView(topup: AutoTopup | null) {
  return {
    enabled: topup?.enabled ?? false,
    packId: topup?.packId ?? null,
    thresholdUsd: topup ? formatUsd(topup.threshold, 2) : null,
    monthlyMaxUsd: topup ? formatUsd(topup.monthlyMax, 2) : null,
    cardSaved: topup?.card != null,
    card: topup?.card ? { brand: topup.card.brand, last4: topup.card.last4 } : null,
    inFlight: topup?.pendingSince != null,
  };
}
