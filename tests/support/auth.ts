// What the sign-up, sign-in and session tests share: a gateway that trusts X-Forwarded-For,
// so that each request can come from an address of its own (the per-IP limits stay out of the way).
import { useGateway, type TestGateway } from "./server.ts";
import { request } from "./session.ts";

let ips = 0;
/** A new client address for each call (a real one: an entry the gateway cannot read is not believed). */
export const ip = () => {
  ips += 1;
  return `203.0.${113 + Math.floor(ips / 250)}.${ips % 250 + 1}`;
};

export const accountOf = async (gateway: TestGateway, email: string) =>
  (await gateway.store.findAccountByEmail(email)) ?? Promise.reject(new Error(`no account ${email}`));

/** A gateway for the suite, and a POST from a new address each time. */
export function useAuthGateway(dialect: Parameters<typeof useGateway>[0]) {
  const gateway = useGateway(dialect, { TRUST_PROXY: "1" });
  const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(gateway().url, "POST", path, body, { "x-forwarded-for": ip(), ...headers });
  return { gateway, post };
}
