import { freeCreditOffer } from "../../src/core/accounts/sign-in.ts";
import { generateKeySecret, hashKey, keyPrefix } from "../../src/core/keys/secret.ts";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import type { Account, ApiKey, NewKey } from "../../src/core/store.ts";
import type { Store } from "../../src/core/ports.ts";

export interface FundedKey {
  secret: string;
  account: Account;
  key: ApiKey;
}

/** A new account holding `usd` of credits and one API key, made through the store. */
export async function fundedKey(
  store: Store,
  usd: string,
  limits: Partial<Pick<NewKey, "expiresAt" | "creditLimit" | "usdPerHour" | "requestsPerHour">> = {},
): Promise<FundedKey> {
  const now = Date.now();
  const account = await store.createAccount({
    email: `user-${crypto.randomUUID()}@example.test`,
    passwordHash: null,
    initialCredits: { amount: parseUsd(usd) as Nanos, note: "test funds" },
    now,
  });
  if (!account) throw new Error("account e-mail collided");
  const secret = generateKeySecret();
  const key = await store.createKey({
    accountId: account.id, name: "test", prefix: keyPrefix(secret), hash: hashKey(secret), origin: "cli",
    expiresAt: null, creditLimit: null, usdPerHour: null, requestsPerHour: null, now, ...limits,
  });
  return { secret, account, key };
}

/**
 * Verifies a signed-up user's e-mail as its link would, so that it receives the free credits
 * (DESIGN: they are granted at verification). The per-IP bound is lifted: tests sign up many
 * users from one address.
 */
export async function verifyEmail(store: Store, email: string, usd = "5"): Promise<void> {
  const account = await store.findAccountByEmail(email);
  if (!account) throw new Error(`no account ${email}`);
  const now = Date.now();
  const policy = { amount: parseUsd(usd) as Nanos, perIpPerDay: 1_000_000 };
  await store.verifyAccount(account.id, { offer: (a) => freeCreditOffer(a, policy, now), now, by: "by the operator" });
}
