import type { AuditStore } from "../accounts/audit.ts";
import type { Account } from "../entities.ts";
import { formatUsd, nanos } from "../money.ts";
import { TOPUP_CLAIM_STALE_MS, type AutoTopupStore, type TopupClaim } from "./auto-topup.ts";
import { utcMonthStart } from "./sessions.ts";
import { topupFailedMail, topupMetadata, type TopupEventStore } from "./topup-events.ts";

// One automatic top-up attempt, after a charge took the balance below the threshold: claim it
// (at most one in flight per account, within the monthly maximum), ask Stripe to charge the
// saved card off-session, and act on Stripe's answer. The credits never come from here: only
// `payment_intent.succeeded` adds them (topup-events.ts).

/** An off-session charge of a saved card (Stripe's PaymentIntent with `off_session` and `confirm`). */
export interface OffSessionCharge {
  customerId: string;
  paymentMethodId: string;
  amountCents: bigint;
  metadata: Record<string, string>;
  /** The attempt's: Stripe's retries of one request make one PaymentIntent. */
  idempotencyKey: string;
}

/**
 * Stripe's answer: `submitted` (succeeded or still processing: the event will say), or
 * `refused` (declined, or the bank asks the customer to confirm, which cannot happen off-session).
 */
export type OffSessionAnswer =
  | { status: "submitted"; paymentIntentId: string }
  | { status: "refused"; paymentIntentId: string | null; reason: string };

/**
 * Stripe's answer was lost (a broken connection, a timeout, Stripe's own 5xx): the PaymentIntent
 * may have been made and may yet succeed. Thrown by a provider instead of its cause.
 */
export class OffSessionOutcomeUnknown extends Error {
  override name = "OffSessionOutcomeUnknown";
}

export interface TopupProvider {
  /**
   * Throws when Stripe could not be asked or failed otherwise (not a refusal of the card):
   * `OffSessionOutcomeUnknown` when it may have charged the card all the same.
   */
  chargeOffSession(input: OffSessionCharge): Promise<OffSessionAnswer>;
}

export interface TopupRunDeps {
  store: Pick<AutoTopupStore, "claimAutoTopup" | "nameTopup" | "dropTopupClaim"> & Pick<TopupEventStore, "failTopup">
    & Pick<AuditStore, "recordAudit"> & { getAccount(id: string): Promise<Account | null> };
  provider: TopupProvider;
  dashboardUrl: string;
}

/** The dashboard's Top up page for the account: an organization's through the switcher's `?org=`. */
export async function topUpPage(deps: Pick<TopupRunDeps, "store" | "dashboardUrl">, accountId: string): Promise<string> {
  const account = await deps.store.getAccount(accountId);
  return account?.kind === "organization" ? `${deps.dashboardUrl}/topup?org=${encodeURIComponent(accountId)}` : `${deps.dashboardUrl}/topup`;
}

/** A refused attempt: turned off, one mail, audited (when this refusal is the one that turned it off). */
export async function refuseTopup(
  deps: Pick<TopupRunDeps, "store" | "dashboardUrl">,
  failure: { eventId: string | null; eventType: string | null; paymentIntentId: string | null; reason: string; topup: { accountId: string; packId: TopupClaim["packId"]; holdId: string } },
  now: number,
): Promise<boolean> {
  const mail = topupFailedMail(await topUpPage(deps, failure.topup.accountId), failure.reason);
  const { turnedOff } = await deps.store.failTopup({ ...failure, mail, now });
  if (turnedOff) {
    await deps.store.recordAudit({
      accountId: failure.topup.accountId, type: "auto_topup_off", ip: null, at: now,
      detail: `automatic top-up turned off: payment ${failure.paymentIntentId ?? "not made"} refused (${failure.reason})`,
    });
  }
  return turnedOff;
}

/**
 * Tries one top-up for the account: nothing unless the claim is granted. Stripe's refusal turns
 * it off (refuseTopup). Stripe's failure drops the attempt and keeps it on, so that the next
 * charge tries again, unless the card may have been charged (`OffSessionOutcomeUnknown`): then
 * the claim and its purchase stay, counted in the month's maximum and holding back any other
 * attempt, until Stripe's event for that PaymentIntent settles them (its metadata names the
 * claim) or the claim goes stale (`TOPUP_CLAIM_STALE_MS`). A second payment for one crossing is
 * worse than a late one.
 */
export async function runAutoTopup(deps: TopupRunDeps, accountId: string, now: number): Promise<"none" | "submitted" | "refused" | "dropped"> {
  const claim = await deps.store.claimAutoTopup({ accountId, now, monthStart: utcMonthStart(now), staleBefore: now - TOPUP_CLAIM_STALE_MS });
  if (claim === null) return "none";
  const topup = { accountId, packId: claim.packId, holdId: claim.holdId };
  let answer: OffSessionAnswer;
  try {
    answer = await deps.provider.chargeOffSession({
      customerId: claim.card.customerId, paymentMethodId: claim.card.paymentMethodId, amountCents: claim.amountCents,
      metadata: topupMetadata(topup), idempotencyKey: claim.holdId,
    });
  } catch (error) {
    if (!(error instanceof OffSessionOutcomeUnknown)) await deps.store.dropTopupClaim(claim);
    throw error;
  }
  if (answer.status === "refused") {
    await refuseTopup(deps, { eventId: null, eventType: null, paymentIntentId: answer.paymentIntentId, reason: answer.reason, topup }, now);
    return "refused";
  }
  await deps.store.nameTopup(claim.holdId, answer.paymentIntentId);
  await deps.store.recordAudit({
    accountId, type: "auto_topup_started", ip: null, at: now,
    detail: `automatic top-up ${answer.paymentIntentId}: ${claim.packId} pack, ${formatUsd(nanos(claim.amountCents * 10_000_000n), 2)} USD charged to the saved card`,
  });
  return "submitted";
}
