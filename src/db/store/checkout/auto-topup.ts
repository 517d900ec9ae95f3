import { packPriceCents, type AutoTopup, type AutoTopupStore, type TopupClaim } from "../../../core/checkout/auto-topup.ts";
import { CHECKOUT_OPEN_MS } from "../../../core/checkout/sessions.ts";
import { CREDIT_PACKS, isPackId } from "../../../core/checkout/packs.ts";
import { nanos } from "../../../core/money.ts";
import type { Database } from "../../database.ts";
import { big, exec, first, int, intOrNull, rows, type Row, type Work } from "../../sql.ts";

const COLUMNS = "account_id, pack_id, threshold_nanos, monthly_max_nanos, enabled, customer_id, payment_method_id, card_brand, card_last4, pending_since";

const toTopup = (r: Row): AutoTopup => ({
  accountId: r.account_id as string,
  packId: r.pack_id as string,
  threshold: nanos(big(r.threshold_nanos)),
  monthlyMax: nanos(big(r.monthly_max_nanos)),
  enabled: int(r.enabled) === 1,
  card: typeof r.customer_id === "string" && typeof r.payment_method_id === "string"
    ? { customerId: r.customer_id, paymentMethodId: r.payment_method_id, brand: (r.card_brand as string | null) ?? null, last4: (r.card_last4 as string | null) ?? null }
    : null,
  pendingSince: intOrNull(r.pending_since),
});

function* getAutoTopup(accountId: string): Work<AutoTopup | null> {
  const row = yield* first(`SELECT ${COLUMNS} FROM auto_topups WHERE account_id = ?`, accountId);
  return row ? toTopup(row) : null;
}

/** Top-up money (cents) charged this month or in flight: what the monthly maximum is measured against. */
function* chargedThisMonth(accountId: string, monthStart: number): Work<bigint> {
  const row = yield* first(
    `SELECT COALESCE(SUM(amount_paid_cents), 0) AS cents FROM checkout_sessions
     WHERE account_id = ? AND auto_topup = 1 AND status IN ('open', 'paid') AND created_at >= ?`,
    accountId, monthStart,
  );
  return big(row?.cents);
}

/**
 * The claim is the conditional UPDATE: of any number of settlements racing, on any instances,
 * one sets `pending_since` (Postgres re-checks the row's condition after waiting for its lock;
 * SQLite's writes are serial). The month's total is read after the claim holds the row, so it
 * sees every attempt that was in flight before; over the maximum, the claim is given back.
 */
function* claimAutoTopup(input: Parameters<AutoTopupStore["claimAutoTopup"]>[0]): Work<TopupClaim | null> {
  const claimed = yield* first(
    `UPDATE auto_topups SET pending_since = ?
     WHERE account_id = ? AND enabled = 1 AND payment_method_id IS NOT NULL
       AND (pending_since IS NULL OR pending_since < ?)
       AND threshold_nanos > (SELECT balance_nanos FROM accounts WHERE id = ?)
     RETURNING ${COLUMNS}`,
    input.now, input.accountId, input.staleBefore, input.accountId,
  );
  if (!claimed) return null;
  const topup = toTopup(claimed);
  if (!isPackId(topup.packId) || topup.card === null) return null;
  const amountCents = packPriceCents(topup.packId);
  const limitCents = topup.monthlyMax / 10_000_000n;
  if ((yield* chargedThisMonth(input.accountId, input.monthStart)) + amountCents > limitCents) {
    yield* exec("UPDATE auto_topups SET pending_since = NULL WHERE account_id = ?", input.accountId);
    return null;
  }
  // Not a Stripe id: the PaymentIntent's `pi_…` replaces it once Stripe names it (nameTopup).
  const holdId = `topup_${Bun.randomUUIDv7()}`;
  yield* exec(
    `INSERT INTO checkout_sessions (id, account_id, pack_id, credits_nanos, status, created_at, expires_at, amount_paid_cents, auto_topup)
     VALUES (?, ?, ?, ?, 'open', ?, ?, ?, 1)`,
    holdId, input.accountId, topup.packId, CREDIT_PACKS[topup.packId].credits, input.now, input.now + CHECKOUT_OPEN_MS, amountCents,
  );
  return { holdId, accountId: input.accountId, packId: topup.packId, amountCents, card: topup.card };
}

function* putAutoTopup(accountId: string, settings: Parameters<AutoTopupStore["putAutoTopup"]>[1], now: number): Work<AutoTopup> {
  yield* exec(
    `INSERT INTO auto_topups (account_id, pack_id, threshold_nanos, monthly_max_nanos, enabled, updated_at) VALUES (?, ?, ?, ?, 1, ?)
     ON CONFLICT (account_id) DO UPDATE SET pack_id = excluded.pack_id, threshold_nanos = excluded.threshold_nanos,
       monthly_max_nanos = excluded.monthly_max_nanos, enabled = 1, updated_at = excluded.updated_at`,
    accountId, settings.packId, settings.threshold, settings.monthlyMax, now,
  );
  return (yield* getAutoTopup(accountId)) as AutoTopup;
}

/** The settings' half of the store; the events' half is topup-events.ts. */
export const autoTopupStore = (db: Database): AutoTopupStore => ({
  getAutoTopup: (accountId) => db.run(getAutoTopup(accountId)),
  putAutoTopup: (accountId, settings, now) => db.transaction(putAutoTopup(accountId, settings, now)),
  deleteAutoTopup: async (accountId) => (await db.run(rows("DELETE FROM auto_topups WHERE account_id = ? RETURNING account_id", accountId))).length > 0,
  saveAutoTopupCard: (accountId, card, now) => db.run(exec(
    `UPDATE auto_topups SET customer_id = ?, payment_method_id = ?, card_brand = ?, card_last4 = ?, updated_at = ? WHERE account_id = ?`,
    card.customerId, card.paymentMethodId, card.brand, card.last4, now, accountId,
  )),
  listArmedAutoTopups: async () => {
    const armed = await db.run(rows("SELECT account_id, threshold_nanos FROM auto_topups WHERE enabled = 1 AND payment_method_id IS NOT NULL"));
    return armed.map((r) => ({ accountId: r.account_id as string, threshold: nanos(big(r.threshold_nanos)) }));
  },
  claimAutoTopup: (input) => db.transaction(claimAutoTopup(input)),
  nameTopup: (holdId, paymentIntentId) => db.run(exec(
    "UPDATE checkout_sessions SET id = ?, payment_intent_id = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM checkout_sessions WHERE id = ?)",
    paymentIntentId, paymentIntentId, holdId, paymentIntentId,
  )),
  dropTopupClaim: (claim) => db.transaction(dropTopupClaim(claim)),
});

function* dropTopupClaim(claim: TopupClaim): Work<void> {
  yield* exec("DELETE FROM checkout_sessions WHERE id = ? AND status = 'open'", claim.holdId);
  yield* exec("UPDATE auto_topups SET pending_since = NULL WHERE account_id = ?", claim.accountId);
}
