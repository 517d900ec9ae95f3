import { formatUsd, nanos, type Nanos } from "../../../core/money.ts";
import type { WebhookEventType } from "../../../core/webhooks/events.ts";
import type { Account, AccountStore, Credit, NewAccount } from "../../../core/store.ts";
import type { Database } from "../../database.ts";
import { eq, sum } from "drizzle-orm";
import { accounts, ledgerEntries } from "../../schema/sqlite.ts";
import { big, first, type Work } from "../../sql.ts";
import { build, query, records } from "../../typed.ts";
import { ALERT_STATE_COLUMNS, followLowBalanceAlert } from "../alerts.ts";
import { toAccount } from "../rows.ts";
import { queueWebhookEvent } from "../webhooks.ts";
import { recordAudit } from "./audit.ts";

/** The webhook event a ledger entry of each kind sends. */
const LEDGER_EVENTS: Partial<Record<Credit["kind"], WebhookEventType>> = { grant: "credits.granted", purchase: "purchase.completed" };

/**
 * Appends a ledger entry and moves the account's balance by the same amount, in the caller's
 * transaction, so that balance = sum(ledger) always holds. Returns null, changing nothing,
 * when the idempotency key is already in the ledger. A settlement passes `release` to free its
 * reservation in the same update.
 */
export function* appendLedger(
  credit: Credit,
  release: { reserved: Nanos; requests: number } = { reserved: 0n as Nanos, requests: 0 },
): Work<{ balance: Nanos } | null> {
  const inserted = yield* first(
    `INSERT INTO ledger_entries (id, account_id, kind, amount_nanos, idempotency_key, note, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
    Bun.randomUUIDv7(), credit.accountId, credit.kind, credit.amount, credit.idempotencyKey ?? null,
    credit.note ?? null, credit.now,
  );
  if (!inserted) return null;
  const account = yield* first(
    `UPDATE accounts SET balance_nanos = balance_nanos + ?, reserved_nanos = reserved_nanos - ?, inflight = inflight - ?
     WHERE id = ? RETURNING balance_nanos, ${ALERT_STATE_COLUMNS}`,
    credit.amount, release.reserved, release.requests, credit.accountId,
  );
  if (!account) throw new Error(`ledger entry for unknown account ${credit.accountId}`);
  // Every debit and credit passes here, so this is where the low-balance alert is queued and re-armed.
  yield* followLowBalanceAlert(credit.accountId, account, credit.amount, credit.now);
  const balance = nanos(big(account.balance_nanos));
  // Credits that arrive are told to the account's webhook; charges, the chat path's, never are.
  const event = LEDGER_EVENTS[credit.kind];
  if (event) {
    const data = { amountUsd: formatUsd(credit.amount, 9), balanceUsd: formatUsd(balance, 9), note: credit.note ?? null };
    yield* queueWebhookEvent(credit.accountId, event, data, credit.now);
  }
  return { balance };
}

export function* createAccount(input: NewAccount): Work<Account | null> {
  const id = Bun.randomUUIDv7();
  // A taken e-mail or look-alike key inserts nothing. (No conflict target: either unique index refuses.)
  const created = yield* query(build.insert(accounts).values({
    id, email: input.email, emailSkeleton: input.emailSkeleton ?? null, passwordHash: input.passwordHash, createdAt: input.now, emailVerifiedAt: input.now,
    isAdmin: input.isAdmin ? 1 : 0,
  }).onConflictDoNothing().returning({ id: accounts.id }));
  if (created.length === 0) return null;
  if (input.initialCredits && input.initialCredits.amount > 0n) {
    yield* appendLedger({ accountId: id, amount: input.initialCredits.amount, kind: "grant", note: input.initialCredits.note, now: input.now });
  }
  for (const event of input.audit?.(id) ?? []) yield* recordAudit(event);
  return yield* getAccount(id);
}

export function* getAccount(id: string): Work<Account | null> {
  const [found] = yield* records(accounts, build.select().from(accounts).where(eq(accounts.id, id)));
  return found ? toAccount(found) : null;
}

function* findAccountByEmail(email: string): Work<Account | null> {
  const [found] = yield* records(accounts, build.select().from(accounts).where(eq(accounts.email, email)));
  return found ? toAccount(found) : null;
}

function* ledgerSum(accountId: string): Work<Nanos> {
  const [row] = yield* query(build.select({ total: sum(ledgerEntries.amountNanos).as("total") }).from(ledgerEntries)
    .where(eq(ledgerEntries.accountId, accountId)));
  return nanos(big(row?.total));
}

export const accountStore = (db: Database): AccountStore => ({
  createAccount: (input) => db.transaction(createAccount(input)),
  getAccount: (id) => db.run(getAccount(id)),
  findAccountByEmail: (email) => db.run(findAccountByEmail(email)),
  addCredit: (credit) => db.transaction(appendLedger(credit)),
  ledgerSum: (accountId) => db.run(ledgerSum(accountId)),
});

