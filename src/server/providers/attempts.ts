// Sending one client request to a provider with several keys: before the answer starts, a
// failure that another key may not share (refused, throttled, a 5xx, no connection) is tried
// again on another key, at most twice, within the request's one timeout. A request the
// provider rejected (400, 422) is the client's to fix and is never retried.
import { upstreamFailure } from "../../core/chat/failures.ts";
import type { AppError } from "../../core/errors.ts";
import { KeyPool, REFUSED_REST_MS, THROTTLED_REST_MS } from "./key-pool.ts";

const MAX_ATTEMPTS = 3;

/** How an attempt ended, for metrics per provider and key index. */
export type AttemptOutcome = "ok" | "rejected" | "refused" | "throttled" | "failed" | "unreachable";

/** What every request's attempts at one provider share: made once per provider. */
export interface Attempts {
  pool: KeyPool;
  readText(response: Response): Promise<string>;
  /** Every configured provider key (`secretsInOrder`): taken out of the provider's words before a client sees them. */
  secrets: readonly string[];
  observe(keyIndex: number | null, outcome: AttemptOutcome): void;
}

/** One client request's exchange with the provider, as its attempts use it. */
export interface AttemptExchange {
  /** One HTTP exchange with `secret` (undefined: no key is configured); throws when there is no answer. */
  send(secret: string | undefined): Promise<Response>;
  /** The error the client is told when `send` threw (timed out, unreachable, too large). */
  failure(error: unknown): AppError;
  /** The request's signal: once it is aborted (timeout, client gone) nothing more is tried. */
  readonly signal: AbortSignal;
}

const NONE_TRIED: ReadonlySet<number> = new Set();

/** `Retry-After` in milliseconds (seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function outcomeOf(status: number): AttemptOutcome {
  if (status === 401 || status === 403) return "refused";
  if (status === 429) return "throttled";
  return status >= 500 ? "failed" : "rejected";
}

/** The provider's 200 answer, or the failure of the last attempt. */
export async function answerWithRetries(a: Attempts, exchange: AttemptExchange, now: () => number): Promise<Response> {
  // Made on a second attempt only: most requests are answered by their first.
  let tried: Set<number> | null = null;
  let failure: AppError | undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS && !exchange.signal.aborted; attempt++) {
    const key = a.pool.pick(tried ?? NONE_TRIED);
    if (key === null && attempt > 0) break; // no other key to try
    if (key) (tried ??= new Set()).add(key.index);
    const index = key?.index ?? null;
    let response: Response;
    try {
      response = await exchange.send(key?.secret);
    } catch (error) {
      failure = exchange.failure(error);
      a.observe(index, "unreachable");
      continue;
    }
    const outcome = response.ok ? "ok" : outcomeOf(response.status);
    a.observe(index, outcome);
    if (outcome === "ok") return response;
    failure = upstreamFailure(response.status, await a.readText(response).catch(() => ""), a.secrets);
    if (outcome === "rejected") throw failure;
    if (key && outcome === "refused") a.pool.rest(key.index, REFUSED_REST_MS);
    if (key && outcome === "throttled") a.pool.rest(key.index, retryAfterMs(response.headers.get("retry-after"), now()) ?? THROTTLED_REST_MS);
  }
  throw failure ?? exchange.failure(exchange.signal.reason);
}
