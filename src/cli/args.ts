// Arguments several commands read: an account named by e-mail, and USD flags.
import { parseEmail } from "../core/accounts/sign-in.ts";
import { parseUsd, type Nanos } from "../core/money.ts";
import type { Account } from "../core/store.ts";
import type { Store } from "../core/ports.ts";
import { CliError } from "./output.ts";

/** The account with this e-mail (normalized as sign-in does), or a CLI error naming it. */
export async function requireAccount(store: Store, email: string): Promise<Account> {
  const account = await store.findAccountByEmail(parseEmail(email));
  if (!account) throw new CliError(`no account with e-mail "${email}" (see: gateway users list)`);
  return account;
}

/**
 * A USD flag: an exact decimal amount (`parseUsd`'s text: "25", "-2.50"; never "1e3" or
 * "0x10"), negative only when `signed`, refused when `accept` says no.
 */
export function usdFlag(flag: string, raw: string, accept: (amount: Nanos) => boolean, expected: string, signed = false): Nanos {
  const amount = parseUsd(raw, { signed });
  if (amount === null || !accept(amount)) throw new CliError(`${flag} must be ${expected} (got "${raw}")`);
  return amount;
}
