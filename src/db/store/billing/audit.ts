import { nanos } from "../../../core/money.ts";
import type { AccountAudit } from "../../../core/store.ts";
import { big, first, int, type Work } from "../../sql.ts";

export function* auditAccount(accountId: string): Work<AccountAudit | null> {
  const row = yield* first(
    `SELECT a.balance_nanos, a.reserved_nanos,
       (SELECT COALESCE(SUM(amount_nanos), 0) FROM ledger_entries WHERE account_id = a.id) AS ledger_sum,
       (SELECT COALESCE(SUM(amount_nanos), 0) FROM ledger_entries WHERE account_id = a.id AND kind <> 'charge') AS credited,
       (SELECT COALESCE(SUM(cost_nanos), 0) FROM usage_logs WHERE account_id = a.id) AS usage_cost,
       (SELECT COUNT(*) FROM reservations WHERE account_id = a.id) AS open_reservations
     FROM accounts a WHERE a.id = ?`,
    accountId,
  );
  if (!row) return null;
  return {
    balance: nanos(big(row.balance_nanos)),
    ledgerSum: nanos(big(row.ledger_sum)),
    credited: nanos(big(row.credited)),
    usageCost: nanos(big(row.usage_cost)),
    reserved: nanos(big(row.reserved_nanos)),
    openReservations: int(row.open_reservations),
  };
}
