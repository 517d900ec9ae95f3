import Decimal from "decimal.js";
import { formatUsd, NANOS_PER_USD, type Nanos } from "../money.ts";
import type { Account } from "../store.ts";

type AccountState = "active" | "banned" | "deleted";

/** Deleted wins over banned: a deleted account is gone whatever else is set on it. */
export function accountState(account: Pick<Account, "bannedAt" | "deletedAt">): AccountState {
  if (account.deletedAt !== null) return "deleted";
  if (account.bannedAt !== null) return "banned";
  return "active";
}

/**
 * A stored amount as a JSON number, for the fields the API accepts as numbers and echoes back
 * (settings, key limits). The inputs were parsed from numbers, so the conversion is exact.
 */
export const usdNumber = (amount: Nanos): number => new Decimal(amount.toString()).div(NANOS_PER_USD.toString()).toNumber();

/** `GET /account`: the spec's settings as the API takes them (-1 for an unlimited spend limit). */
export const accountView = (account: Account) => ({
  email: account.email,
  balanceUsd: formatUsd(account.balance, 6),
  alertThreshold: account.alertThreshold === null ? null : usdNumber(account.alertThreshold),
  spendSafetyLimit: account.spendLimit === null ? -1 : usdNumber(account.spendLimit),
  createdAt: new Date(account.createdAt).toISOString(),
});
