// Operators for the console's tests: accounts made as `gateway users create --admin` makes them.
import { hashPassword } from "../../src/core/accounts/sign-in.ts";
import type { Store } from "../../src/core/ports.ts";
import { logInUser, PASSWORD, uniqueEmail, type Browser } from "./session.ts";

/** A new operator account, signed in to the gateway at `baseUrl`. */
export async function signInOperator(baseUrl: string, store: Store, email = uniqueEmail("operator")): Promise<Browser> {
  const account = await store.createAccount({ email, passwordHash: await hashPassword(PASSWORD), isAdmin: true, now: Date.now() });
  if (!account) throw new Error(`the e-mail ${email} is taken`);
  return logInUser(baseUrl, email);
}

/** The id of the account behind a signed-in browser. */
export async function accountIdOf(store: Store, user: Browser): Promise<string> {
  const account = await store.findAccountByEmail(user.email);
  if (!account) throw new Error(`no account ${user.email}`);
  return account.id;
}
