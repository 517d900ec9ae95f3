// Helpers for the client-library suite (tests/integration/clients): what the real SDKs need
// beyond the base URL, and a way to count the HTTP requests they make.
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { formatUsd, requestCost, type Nanos } from "../../src/core/money.ts";
import type { Store } from "../../src/core/ports.ts";

/** A fetch that counts the requests a client makes (retries included) and passes them on. */
export function countingFetch(): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  const counted = ((input: RequestInfo | URL, init?: RequestInit) => {
    calls++;
    return fetch(input, init);
  }) as typeof fetch;
  return { fetch: counted, calls: () => calls };
}

export const modelOf = (id: string) => {
  const model = FALLBACK_CATALOG.find((m) => m.id === id);
  if (!model) throw new Error(`no catalog model ${id}`);
  return model;
};

/** What the gateway charges for this usage on the catalog's prices (cached tokens at the cached-input price). */
export const costOf = (id: string, promptTokens: number, completionTokens: number, cachedTokens = 0): Nanos =>
  requestCost(promptTokens, completionTokens, modelOf(id), cachedTokens);

/** The charge as `usage.cost_usd` and the CSV show it: 9 fractional digits. */
export const usd9 = (amount: Nanos): string => formatUsd(amount, 9);

/** The account's newest usage log as the CSV export reads it. */
export async function newestUsageLog(store: Store, accountId: string) {
  const [row] = await store.usageLogPage(accountId, null, 1);
  if (!row) throw new Error("no usage log");
  return row;
}
