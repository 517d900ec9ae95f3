// The ledger's invariants, checked from outside the gateway processes through a store of the
// test's own on the same database.
import { expect } from "bun:test";
import type { AccountAudit } from "../../src/core/store.ts";
import type { Store } from "../../src/core/ports.ts";
import type { Database } from "../../src/db/database.ts";
import { rows } from "../../src/db/sql.ts";
import { createStore } from "../../src/db/store/index.ts";
import { openTestDatabase } from "./databases.ts";

export interface Books {
  db: Database;
  store: Store;
  close(): Promise<void>;
}

/** A store of the test's own on a database that gateway processes use. */
export function openBooks(url: string): Books {
  const db = openTestDatabase(url);
  return { db, store: createStore(db), close: () => db.close() };
}

/**
 * Everything the account started has ended: balance = the sum of its ledger, credits minus
 * the usage logs' costs = balance (every charge has its log), and nothing is still reserved
 * or counted in flight. Returns the audit for further checks.
 */
export async function expectBooksClosed(store: Store, accountId: string): Promise<AccountAudit> {
  const audit = await store.auditAccount(accountId);
  if (!audit) throw new Error(`no account ${accountId}`);
  const account = await store.getAccount(accountId);
  expect({ ledgerSum: audit.ledgerSum, creditsLessUsage: audit.credited - audit.usageCost }).toEqual({
    ledgerSum: audit.balance,
    creditsLessUsage: audit.balance,
  });
  expect({ reserved: audit.reserved, openReservations: audit.openReservations, inflight: account?.inflight }).toEqual({
    reserved: 0n as never,
    openReservations: 0,
    inflight: 0,
  });
  return audit;
}

/** The account's usage logs, oldest first, as status and error text. */
export async function usageOutcomes(db: Database, accountId: string): Promise<{ status: string; error: string | null }[]> {
  const found = await db.run(
    rows<{ status: string; error: string | null }>("SELECT status, error FROM usage_logs WHERE account_id = ? ORDER BY created_at, id", accountId),
  );
  return found.map((r) => ({ status: r.status, error: r.error }));
}
