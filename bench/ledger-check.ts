import { openDatabase } from "../src/db/database.ts";
import { createStore } from "../src/db/store/index.ts";
import { formatUsd, nanos } from "../src/core/money.ts";

/** After the load: every account's balance = its credits − the usage logs' costs = its ledger sum, nothing reserved. */
export async function checkLedger(databaseUrl: string, emails: string[]): Promise<{ ok: boolean; detail: string }> {
  const db = openDatabase(databaseUrl);
  const store = createStore(db);
  let charged = 0n;
  const problems: string[] = [];
  for (const email of emails) {
    const account = await store.findAccountByEmail(email);
    const audit = account ? await store.auditAccount(account.id) : null;
    if (!audit) {
      problems.push(`${email}: missing`);
      continue;
    }
    charged += audit.usageCost;
    if (audit.balance !== audit.ledgerSum) problems.push(`${email}: balance ${audit.balance} ≠ ledger ${audit.ledgerSum}`);
    if (audit.balance !== audit.credited - audit.usageCost) problems.push(`${email}: balance ≠ credits − usage costs`);
    if (audit.openReservations !== 0 || audit.reserved !== 0n) problems.push(`${email}: ${audit.openReservations} reservations open`);
  }
  await db.close();
  const detail = problems.length
    ? problems.slice(0, 5).join("; ")
    : `${emails.length} accounts: balance = credits − usage costs = ledger sum, none reserved; $${formatUsd(nanos(charged), 6)} charged in all`;
  return { ok: problems.length === 0, detail };
}
