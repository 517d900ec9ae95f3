import { generateKeySecret, hashKey, keyPrefix } from "../../src/core/keys.ts";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import type { Account, ApiKey, NewKey, Store } from "../../src/core/store.ts";

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
