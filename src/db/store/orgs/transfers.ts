// Credit moved from a person's balance into an organization: two ledger entries in one
// transaction, never back, and the same idempotency key moves it once.
import { formatUsd, nanos } from "../../../core/money.ts";
import type { OrgStore } from "../../../core/orgs/store.ts";
import type { Dialect } from "../../migration-files.ts";
import { big, first, type Work } from "../../sql.ts";
import { recordAudit } from "../accounts/audit.ts";
import { appendLedger } from "../accounts/records.ts";
import { lockOrg, orgAudit } from "./orgs.ts";

type Transferred = Awaited<ReturnType<OrgStore["transfer"]>>;

function* balances(personId: string, orgId: string): Work<{ personalBalance: ReturnType<typeof nanos>; orgBalance: ReturnType<typeof nanos> }> {
  const person = yield* first("SELECT balance_nanos FROM accounts WHERE id = ?", personId);
  const org = yield* first("SELECT balance_nanos FROM accounts WHERE id = ?", orgId);
  return { personalBalance: nanos(big(person?.balance_nanos)), orgBalance: nanos(big(org?.balance_nanos)) };
}

/**
 * The person's row is locked first and the organization's second, as every transfer takes
 * them (admissions take one row), so that transfers cannot deadlock. What is available is the
 * balance less the person's own requests in flight.
 */
export function* transfer(dialect: Dialect, input: Parameters<OrgStore["transfer"]>[0]): Work<Transferred> {
  const { orgId, actor, amount, now } = input;
  const person = yield* first(
    `SELECT balance_nanos, reserved_nanos, email FROM accounts WHERE id = ?${dialect === "postgres" ? " FOR UPDATE" : ""}`, actor.userId,
  );
  const org = yield* lockOrg(dialect, orgId);
  if (!person || !org) return { refused: "insufficient" };
  const key = `transfer:${actor.userId}:${input.idempotencyKey}`;
  const earlier = yield* first("SELECT account_id, amount_nanos FROM ledger_entries WHERE idempotency_key = ?", `${key}:in`);
  if (earlier) {
    const same = earlier.account_id === orgId && big(earlier.amount_nanos) === amount;
    return same ? { ok: { ...(yield* balances(actor.userId, orgId)), replayed: true } } : { refused: "conflict" };
  }
  if (big(person.balance_nanos) - big(person.reserved_nanos) < amount) return { refused: "insufficient" };
  const orgName = (yield* first("SELECT name FROM organizations WHERE id = ?", orgId))?.name as string;
  const usd = `$${formatUsd(amount, 2)}`;
  yield* appendLedger({ accountId: actor.userId, amount: nanos(-amount), kind: "transfer", note: `to organization "${orgName}"`, idempotencyKey: `${key}:out`, now });
  yield* appendLedger({ accountId: orgId, amount, kind: "transfer", note: `from ${person.email as string}`, idempotencyKey: `${key}:in`, now });
  yield* recordAudit({ accountId: actor.userId, type: "credits_transferred", ip: actor.ip, detail: `${usd} moved to organization "${orgName}"`, at: now });
  yield* orgAudit(orgId, actor, "credits_transferred", `${usd} moved in from ${person.email as string}`, now);
  return { ok: { ...(yield* balances(actor.userId, orgId)), replayed: false } };
}
