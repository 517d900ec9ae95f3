import { and, desc, eq, gt, gte, or, sum } from "drizzle-orm";
import { fitsCapacity, type CheckoutHold, type CheckoutRecord, type CheckoutStore, type ReceiptStore } from "../../../core/checkout/sessions.ts";
import { nanos } from "../../../core/money.ts";
import type { Database } from "../../database.ts";
import type { Dialect } from "../../migration-files.ts";
import { checkoutSessions as sessions } from "../../schema/sqlite.ts";
import { big, storableText, type Work } from "../../sql.ts";
import { build, query, records } from "../../typed.ts";
import { lockScope } from "../accounts/rate-limits.ts";

/** Every capacity check queues on this one scope: the cap is platform-wide. */
const CAPACITY_SCOPE = "checkout:capacity";

const toCheckout = (r: typeof sessions.$inferSelect): CheckoutRecord => ({
  id: r.id,
  accountId: r.accountId,
  packId: r.packId,
  credits: r.creditsNanos,
  status: r.status,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
  paidAt: r.paidAt,
  receiptUrl: r.receiptUrl,
  paymentIntentId: r.paymentIntentId,
  amountPaidCents: r.amountPaidCents === null ? null : BigInt(r.amountPaidCents),
  refundedCents: BigInt(r.refundedCents),
  refundedCredits: r.refundedNanos,
  disputedCents: r.disputedCents === null ? null : BigInt(r.disputedCents),
  disputeStatus: r.disputeStatus,
  autoTopup: r.autoTopup === 1,
  invoiceId: r.invoiceId,
  invoiceUrl: r.invoiceUrl,
  checkoutUrl: r.checkoutUrl,
});

/** Credits committed against the capacity: paid this UTC month, or in a checkout still open. */
function* committedCredits(input: CheckoutHold): Work<bigint> {
  const [row] = yield* query(build.select({ committed: sum(sessions.creditsNanos).as("committed") }).from(sessions).where(or(
    and(eq(sessions.status, "paid"), gte(sessions.paidAt, input.monthStart)),
    and(eq(sessions.status, "open"), gt(sessions.createdAt, input.openedSince), gt(sessions.expiresAt, input.now)),
  )));
  return big(row?.committed);
}

function* holdCheckout(dialect: Dialect, input: CheckoutHold): Work<{ holdId: string } | { exhausted: true }> {
  if (input.capacity !== null) {
    yield* lockScope(dialect, CAPACITY_SCOPE);
    if (!fitsCapacity(input.capacity, nanos(yield* committedCredits(input)), input.pack.credits)) return { exhausted: true };
  }
  // Not a Stripe id (those start with cs_), so a hold can never be taken for a session.
  const holdId = `hold_${Bun.randomUUIDv7()}`;
  yield* query(build.insert(sessions).values({
    id: holdId, accountId: input.accountId, packId: input.pack.id, creditsNanos: input.pack.credits, status: "open",
    createdAt: input.now, expiresAt: input.holdExpiresAt,
  }));
  return { holdId };
}

function* listCheckouts(accountId: string, paidOnly: boolean): Work<CheckoutRecord[]> {
  const mine = eq(sessions.accountId, accountId);
  const found = yield* records(sessions, build.select().from(sessions)
    .where(paidOnly ? and(mine, eq(sessions.status, "paid")) : mine).orderBy(desc(sessions.createdAt), desc(sessions.id)));
  return found.map(toCheckout);
}

export const checkoutStore = (db: Database): CheckoutStore & ReceiptStore => ({
  holdCheckout: (input) => db.transaction(holdCheckout(db.dialect, input)),
  openCheckout: async (holdId, session) => {
    await db.run(query(build.update(sessions).set({ id: session.id, expiresAt: session.expiresAt, checkoutUrl: session.url }).where(eq(sessions.id, holdId))));
  },
  expireCheckout: async (id) => {
    // Only an open session: one a webhook has marked paid or failed meanwhile keeps that status.
    await db.run(query(build.update(sessions).set({ status: "expired" }).where(and(eq(sessions.id, id), eq(sessions.status, "open")))));
  },
  dropCheckoutHold: async (holdId) => {
    await db.run(query(build.delete(sessions).where(eq(sessions.id, holdId))));
  },
  getCheckout: async (id) => {
    if (!storableText(id)) return null;
    const [found] = await db.run(records(sessions, build.select().from(sessions).where(eq(sessions.id, id))));
    return found ? toCheckout(found) : null;
  },
  listCheckouts: (accountId, { paidOnly }) => db.run(listCheckouts(accountId, paidOnly)),
  setReceiptUrl: async (purchaseId, url) => {
    await db.run(query(build.update(sessions).set({ receiptUrl: url }).where(eq(sessions.id, purchaseId))));
  },
  setInvoice: async (purchaseId, invoice) => {
    await db.run(query(build.update(sessions).set({ invoiceId: invoice.id, invoiceUrl: invoice.url }).where(eq(sessions.id, purchaseId))));
  },
});
