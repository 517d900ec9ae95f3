// Credit the operator grants an organization (or takes back), as the console grants a person's:
// one ledger entry and its audit event, under the organization's lock.
import { formatUsd, nanos } from "../../../core/money.ts";
import type { OrgStore } from "../../../core/orgs/store.ts";
import type { Dialect } from "../../migration-files.ts";
import { big, type Work } from "../../sql.ts";
import { appendLedger } from "../accounts/records.ts";
import { lockOrg, orgAudit } from "./orgs.ts";

type Granted = Awaited<ReturnType<OrgStore["grantCredit"]>>;

export function* grantCredit(dialect: Dialect, input: Parameters<OrgStore["grantCredit"]>[0]): Work<Granted> {
  const org = yield* lockOrg(dialect, input.orgId);
  if (!org) return { refused: "not_found" };
  // Judged on the locked row, so a charge settling meanwhile cannot slip under the check.
  const balance = big(org.balance_nanos);
  if (input.amount < 0n && balance + input.amount < 0n) return { refused: "below_zero", balance: nanos(balance) };
  const entry = { accountId: input.orgId, amount: input.amount, kind: input.kind, note: input.note, now: input.now };
  const result = yield* appendLedger(entry);
  yield* orgAudit(input.orgId, input.actor, "credits_granted", `${input.kind} of ${formatUsd(input.amount, 9)} USD: ${input.note}`, input.now);
  // appendLedger answers null only for a reused idempotency key, which a grant never carries.
  return { ok: { balance: result?.balance ?? nanos(balance + input.amount) } };
}
