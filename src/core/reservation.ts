import { AppError } from "./errors.ts";
import { formatUsd, type Nanos } from "./money.ts";

export const MINUTE_MS = 60_000;
/** Hourly limits look at the last 60 one-minute buckets, the current one included. */
export const WINDOW_MINUTES = 60;

export const minuteOf = (time: number): number => Math.floor(time / MINUTE_MS);
/** Buckets with a minute above this are inside the rolling hour that ends at `now`. */
export const windowStartMinute = (now: number): number => minuteOf(now) - WINDOW_MINUTES;

/** Spend and request counts over the rolling hour, with the oldest bucket that holds any. */
export interface HourWindow {
  spend: Nanos;
  requests: number;
  oldestMinute: number | null;
}

/** What the reservation decision needs, read under the account's lock. */
export interface ReservationSnapshot {
  inflight: number;
  /** Balance less open reservations. */
  available: Nanos;
  accountSpendLimit: Nanos | null;
  accountHour: HourWindow;
  key: {
    creditLimit: Nanos | null;
    usdPerHour: Nanos | null;
    requestsPerHour: number | null;
    /** Settled lifetime spend plus the key's open reservations. */
    committed: Nanos;
    hour: HourWindow;
  };
}

export interface ReservationPolicy {
  maxConcurrentRequests: number;
  dashboardUrl: string;
}

const usd = (amount: Nanos) => `$${formatUsd(amount, 6)}`;

/** Seconds until the oldest bucket leaves the rolling hour: the earliest the window can drop. */
function retryAfter(window: HourWindow, now: number): number {
  if (window.oldestMinute === null) return 1;
  const leavesAt = (window.oldestMinute + WINDOW_MINUTES + 1) * MINUTE_MS;
  return Math.max(1, Math.ceil((leavesAt - now) / 1000));
}

/**
 * Decides whether a request that may cost up to `amount` can reserve it. Returns the error to
 * answer with, or null to reserve. Limits are checked in the order a client can act on them:
 * concurrency, hourly ceilings, the key's lifetime limit, then the balance.
 */
export function decideReservation(s: ReservationSnapshot, amount: Nanos, policy: ReservationPolicy, now: number): AppError | null {
  if (s.inflight >= policy.maxConcurrentRequests) {
    return new AppError(
      "rate_limit_error",
      `Too many concurrent requests: at most ${policy.maxConcurrentRequests} chat requests may be in flight per account`,
      { retryAfterSeconds: 1, shouldRetry: true },
    );
  }
  if (s.accountSpendLimit !== null && s.accountHour.spend >= s.accountSpendLimit) {
    return new AppError(
      "rate_limit_error",
      `Hourly spend safety limit reached: ${usd(s.accountHour.spend)} spent in the last hour, limit ${usd(s.accountSpendLimit)}`,
      { retryAfterSeconds: retryAfter(s.accountHour, now) },
    );
  }
  const { key } = s;
  if (key.usdPerHour !== null && key.hour.spend >= key.usdPerHour) {
    return new AppError(
      "rate_limit_error",
      `API key hourly spend limit reached: ${usd(key.hour.spend)} spent in the last hour, limit ${usd(key.usdPerHour)}`,
      { retryAfterSeconds: retryAfter(key.hour, now) },
    );
  }
  if (key.requestsPerHour !== null && key.hour.requests >= key.requestsPerHour) {
    return new AppError(
      "rate_limit_error",
      `API key hourly request limit reached: ${key.hour.requests} requests in the last hour, limit ${key.requestsPerHour}`,
      { retryAfterSeconds: retryAfter(key.hour, now) },
    );
  }
  if (key.creditLimit !== null && key.committed + amount > key.creditLimit) {
    return new AppError(
      "insufficient_credits",
      `API key credit limit exceeded: the key's limit is ${usd(key.creditLimit)}, ${usd(key.committed)} is spent or reserved, and this request may cost up to ${usd(amount)}`,
    );
  }
  if (s.available < amount) {
    return new AppError(
      "insufficient_credits",
      `Insufficient credits: available balance ${usd(s.available)}, estimated cost ${usd(amount)}. Top up at ${policy.dashboardUrl}/topup`,
    );
  }
  return null;
}
