import { nanos, type Nanos } from "../money.ts";

export const MINUTE_MS = 60_000;
/** Hourly limits look at the last 60 one-minute buckets, the current one included. */
export const WINDOW_MINUTES = 60;

export const minuteOf = (time: number): number => Math.floor(time / MINUTE_MS);
/** Buckets with a minute above this are inside the rolling hour that ends at `now`. */
export const windowStartMinute = (now: number): number => minuteOf(now) - WINDOW_MINUTES;

/** What the requests that ended in one minute spent, and how many they were. */
export interface MinuteUsage {
  minute: number;
  spend: Nanos;
  requests: number;
}

/** The settled usage of the rolling hour, minute by minute, oldest first. */
export type HourWindow = readonly MinuteUsage[];

export const windowSpend = (window: HourWindow): Nanos => nanos(window.reduce((total, m) => total + m.spend, 0n));
export const windowRequests = (window: HourWindow): number => window.reduce((total, m) => total + m.requests, 0);

/**
 * Seconds from `now` until a request of `amount` fits under `limit` as usage leaves the rolling
 * hour: first the settled minutes (`used` of each, oldest first), then the open reservations
 * it counts (`open`). Those are taken to stay at their full amount and to settle in the current
 * minute, which leaves last: they may end cheaper or sooner, and then a retry would have fitted
 * earlier, never later. Null when `amount` alone exceeds the limit: no wait makes it fit.
 */
export function secondsUntilFits(
  used: readonly { minute: number; amount: bigint }[],
  open: bigint,
  amount: bigint,
  limit: bigint,
  now: number,
): number | null {
  if (amount > limit) return null;
  const leaving = [...used, { minute: minuteOf(now), amount: open }];
  let remaining = leaving.reduce((total, m) => total + m.amount, 0n);
  let fitsFrom = minuteOf(now);
  for (const m of leaving) {
    remaining -= m.amount;
    fitsFrom = m.minute;
    if (remaining + amount <= limit) break;
  }
  // A bucket of minute m is outside the window from the start of minute m + 60.
  return Math.max(1, Math.ceil(((fitsFrom + WINDOW_MINUTES) * MINUTE_MS - now) / 1000));
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A member's daily cap counts the UTC day: its settled spend is one bucket, at the day's first minute. */
export const dayMinuteOf = (time: number): number => minuteOf(time - (time % DAY_MS));

/**
 * Usage-window buckets before this minute are read by no limit and may be deleted: the rolling
 * hour starts later, and so does a member's day bucket. An hour's margin keeps them for an
 * instance whose clock is behind this one's.
 */
export const prunableBefore = (now: number): number => Math.min(windowStartMinute(now), dayMinuteOf(now)) - WINDOW_MINUTES;
