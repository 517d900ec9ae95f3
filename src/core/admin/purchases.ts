import type { AuditStore } from "../accounts/audit.ts";
import { purchaseView } from "../checkout/purchases.ts";
import { paidCents, refundPurchase, type RefundDeps, type RefundRequest } from "../checkout/refunds.ts";
import type { CheckoutRecord } from "../checkout/sessions.ts";
import { AppError } from "../errors.ts";
import { formatUsd, nanos } from "../money.ts";

const usdOfCents = (cents: bigint) => formatUsd(nanos(cents * 10_000_000n), 2);

/**
 * A purchase as the console shows it: the customer's view, plus the money paid, refunded and
 * disputed, the credits taken back for refunds, and how the dispute stands.
 */
export const adminPurchaseView = (c: CheckoutRecord) => ({
  ...purchaseView(c),
  paidUsd: c.status === "paid" ? usdOfCents(paidCents(c)) : null,
  refundedUsd: usdOfCents(c.refundedCents),
  creditsTakenBackUsd: formatUsd(c.refundedCredits, 9),
  disputedUsd: c.disputedCents === null ? null : usdOfCents(c.disputedCents),
  disputeStatus: c.disputeStatus,
});

/** The body of `POST /admin/purchases/{id}/refund`: `{}` for all that is left, or `{"usd": "12.50"}`. */
export function parseRefundBody(body: Record<string, unknown>): Pick<RefundRequest, "usd"> {
  const { usd } = body;
  if (usd === undefined || usd === null) return {};
  if (typeof usd !== "string" && typeof usd !== "number") throw new AppError("invalid_request_error", "usd must be a USD amount");
  return { usd };
}

/**
 * `POST /admin/purchases/{id}/refund` and `gateway purchases refund`: the refund through Stripe
 * (refused while the credits it takes back are spent), audited on the buyer's account as
 * `purchase_refunded`, naming who asked (`operator a@b.c`, `cli (OS user NAME)`).
 */
export async function refundAsOperator(
  deps: RefundDeps & { audit: Pick<AuditStore, "recordAudit"> },
  act: { by: string; ip: string | null; now: number },
  sessionId: string,
  body: Record<string, unknown>,
) {
  const refund = await refundPurchase(deps, { sessionId, ...parseRefundBody(body) });
  await deps.audit.recordAudit({
    accountId: refund.accountId, type: "purchase_refunded", ip: act.ip, at: act.now,
    detail: `refund ${refund.refundId} of ${refund.refundedUsd} USD of checkout ${refund.sessionId} by ${act.by}`,
  });
  return refundView(refund);
}

/** A refund as `POST /admin/purchases/{id}/refund` answers it (and `purchases refund` prints it): whose account it is stays internal. */
export const refundView = (refund: Awaited<ReturnType<typeof refundPurchase>>) => {
  const { accountId: _accountId, ...shown } = refund;
  return shown;
};
