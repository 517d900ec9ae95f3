import { fitsCapacity, type CheckoutHold, type CheckoutRecord, type CheckoutStatus, type CheckoutStore, type ReceiptStore } from "../../core/checkout.ts";
import { nanos } from "../../core/money.ts";
import type { Database } from "../database.ts";
import type { Dialect } from "../migration-files.ts";
import { big, exec, first, int, intOrNull, rows, type Row, type Work } from "../sql.ts";
import { lockScope } from "./rate-limits.ts";

/** Every capacity check queues on this one scope: the cap is platform-wide. */
const CAPACITY_SCOPE = "checkout:capacity";

const CHECKOUT_COLUMNS = "id, account_id, pack_id, credits_nanos, status, created_at, expires_at, paid_at, receipt_url";

const toCheckout = (r: Row): CheckoutRecord => ({
  id: r.id as string,
  accountId: r.account_id as string,
  packId: r.pack_id as string,
  credits: nanos(big(r.credits_nanos)),
  status: r.status as CheckoutStatus,
  createdAt: int(r.created_at),
  expiresAt: int(r.expires_at),
  paidAt: intOrNull(r.paid_at),
  receiptUrl: (r.receipt_url as string | null) ?? null,
});

/** Credits committed against the capacity: paid this UTC month, or in a checkout still open. */
function* committedCredits(input: CheckoutHold): Work<bigint> {
  const row = yield* first(
    `SELECT COALESCE(SUM(credits_nanos), 0) AS committed FROM checkout_sessions
     WHERE (status = 'paid' AND paid_at >= ?) OR (status = 'open' AND created_at > ? AND expires_at > ?)`,
    input.monthStart, input.openedSince, input.now,
  );
  return big(row?.committed);
}

function* holdCheckout(dialect: Dialect, input: CheckoutHold): Work<{ holdId: string } | { exhausted: true }> {
  if (input.capacity !== null) {
    yield* lockScope(dialect, CAPACITY_SCOPE);
    if (!fitsCapacity(input.capacity, nanos(yield* committedCredits(input)), input.pack.credits)) return { exhausted: true };
  }
  // Not a Stripe id (those start with cs_), so a hold can never be taken for a session.
  const holdId = `hold_${Bun.randomUUIDv7()}`;
  yield* exec(
    `INSERT INTO checkout_sessions (id, account_id, pack_id, credits_nanos, status, created_at, expires_at)
     VALUES (?, ?, ?, ?, 'open', ?, ?)`,
    holdId, input.accountId, input.pack.id, input.pack.credits, input.now, input.holdExpiresAt,
  );
  return { holdId };
}

function* listCheckouts(accountId: string, paidOnly: boolean): Work<CheckoutRecord[]> {
  const found = yield* rows(
    `SELECT ${CHECKOUT_COLUMNS} FROM checkout_sessions WHERE account_id = ?${paidOnly ? " AND status = 'paid'" : ""}
     ORDER BY created_at DESC, id DESC`,
    accountId,
  );
  return found.map(toCheckout);
}

export const checkoutStore = (db: Database): CheckoutStore & ReceiptStore => ({
  holdCheckout: (input) => db.transaction(holdCheckout(db.dialect, input)),
  openCheckout: async (holdId, session) => {
    await db.run(exec("UPDATE checkout_sessions SET id = ?, expires_at = ? WHERE id = ?", session.id, session.expiresAt, holdId));
  },
  dropCheckoutHold: async (holdId) => {
    await db.run(exec("DELETE FROM checkout_sessions WHERE id = ?", holdId));
  },
  listCheckouts: (accountId, { paidOnly }) => db.run(listCheckouts(accountId, paidOnly)),
  setReceiptUrl: async (sessionId, url) => {
    await db.run(exec("UPDATE checkout_sessions SET receipt_url = ? WHERE id = ?", url, sessionId));
  },
});
