// What the API-key tests share: the key's formats and messages, and helpers over a user's session.
import { generateKeySecret, hashKey, keyPrefix } from "../../src/core/keys/secret.ts";
import { nanos } from "../../src/core/money.ts";
import { readJson } from "./http.ts";
import { signUpUser, type Browser } from "./session.ts";
import { useGateway, type TestGateway } from "./server.ts";

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const SECRET = /^gw-[0-9A-Za-z]{48}$/;
export const SHOWN_ONCE = "Store this key now: it is shown only once and cannot be retrieved later.";
export const ROTATED = "The old key no longer works. Store the new key now: it is shown only once.";
export const UNKNOWN_ID = "01900000-0000-7000-8000-000000000000";
export const HOUR = 60 * 60 * 1000;

export const generate = async (user: Browser, body: unknown = {}) => {
  const res = await user.send("POST", "/keys/generate", body);
  if (res.status !== 200) throw new Error(`generate answered ${res.status}: ${await res.text()}`);
  return readJson(res);
};
export const list = async (user: Browser) => (await readJson(await user.send("GET", "/keys/generate"))).keys;
export const listed = async (user: Browser, secret: string) => {
  const found = (await list(user)).find((k: { prefix: string }) => k.prefix === keyPrefix(secret));
  if (!found) throw new Error("key not in the list");
  return found;
};

/** A key written straight to the store, for states the API will not create (expired). */
export async function storedKey(gateway: TestGateway, user: Browser, expiresAt: number) {
  const account = await gateway.store.findAccountByEmail(user.email);
  const secret = generateKeySecret();
  const key = await gateway.store.createKey({
    accountId: account!.id, name: "stored", prefix: keyPrefix(secret), hash: hashKey(secret), origin: "cli",
    expiresAt, creditLimit: nanos(3_000_000_000n), usdPerHour: null, requestsPerHour: null, now: Date.now(),
  });
  return key.id;
}

/** A gateway for the suite, and a new signed-up user each call. */
export function useKeysGateway(dialect: Parameters<typeof useGateway>[0]) {
  const gateway = useGateway(dialect);
  return { gateway, newUser: () => signUpUser(gateway().url) };
}
