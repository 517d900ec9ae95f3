import { AppError } from "../errors.ts";
import { secondsUntilFits, windowRequests, windowSpend, type HourWindow } from "./hour-window.ts";
import { formatUsd, nanos, type Nanos } from "../money.ts";

/** Reservations held by requests still in flight. */
interface OpenReservations {
  amount: Nanos;
  requests: number;
}

/** What the reservation decision needs, read under the account's lock. */
export interface ReservationSnapshot {
  inflight: number;
  /** Balance less open reservations. */
  available: Nanos;
  /** The account's open reservations, which count toward its hourly spend safety limit. */
  reserved: Nanos;
  accountSpendLimit: Nanos | null;
  accountHour: HourWindow;
  key: {
    creditLimit: Nanos | null;
    usdPerHour: Nanos | null;
    requestsPerHour: number | null;
    /** Settled lifetime spend. */
    spent: Nanos;
    open: OpenReservations;
    hour: HourWindow;
  };
  /** An organization member's daily cap (UTC day) and what its keys spent today or hold now; absent without a cap. */
  member?: { cap: Nanos; committed: Nanos };
  /** An automatic top-up of the account is in flight: the balance refusal says its credits are on their way. */
  topupUnderWay?: boolean;
}

export interface ReservationPolicy {
  maxConcurrentRequests: number;
  dashboardUrl: string;
  /** What the request's API calls its output ceiling, in a refusal's hint (`max_tokens` unless said). */
  ceilingName?: string;
}

/** The request asking to reserve. */
interface ReservationRequest {
  /** The most it may cost: estimated input plus the output ceiling. */
  amount: Nanos;
  /** What it would reserve with an output ceiling of `maxTokens` (monotone); absent, refusals carry no hint. */
  costOf?: (maxTokens: number) => Nanos;
}

const usd = (amount: bigint) => `$${formatUsd(nanos(amount), 6)}`;

/**
 * The largest output ceiling whose reservation is at most `room`, or null when not even one
 * token fits. Doubles until a ceiling does not fit, then bisects: about 2·log2(ceiling) calls.
 * A `costOf` that never passes `room` (an output price of zero) gives no answer past 2^32 tokens.
 */
export function largestFittingMaxTokens(costOf: (maxTokens: number) => Nanos, room: bigint): number | null {
  if (costOf(1) > room) return null;
  let fits = 1;
  let tooMany = 2;
  while (costOf(tooMany) <= room) {
    if (tooMany >= 2 ** 32) return null;
    fits = tooMany;
    tooMany *= 2;
  }
  while (tooMany - fits > 1) {
    const middle = Math.floor((fits + tooMany) / 2);
    if (costOf(middle) <= room) fits = middle;
    else tooMany = middle;
  }
  return fits;
}

/** How each of a key's limits words its refusal; `keyLimitOf` reads it back. */
const KEY_LIMIT_REFUSALS = {
  credit: "API key credit limit exceeded",
  usd_per_hour: "API key hourly spend limit exceeded",
  requests_per_hour: "API key hourly request limit reached",
} as const;
export type KeyLimit = keyof typeof KEY_LIMIT_REFUSALS;

/** Which of the key's own limits a refusal is, or null for any other (the balance, the account's limits). */
export function keyLimitOf(refusal: AppError): KeyLimit | null {
  const found = Object.entries(KEY_LIMIT_REFUSALS).find(([, opening]) => refusal.message.startsWith(opening));
  return found ? (found[0] as KeyLimit) : null;
}

/** A limit on what requests reserve, and how much of it this request may still take. */
interface SpendCap {
  room: bigint;
  refuse(hint: string): AppError;
}

/** The caps on amounts, each group in the order it is checked: the hourly ceilings, then the key's lifetime limit, a member's daily cap and the balance. */
function spendCaps(s: ReservationSnapshot, amount: Nanos, policy: ReservationPolicy, now: number) {
  const hourly: SpendCap[] = [];
  const lifetime: SpendCap[] = [];
  const hourlyCap = (what: string, limit: Nanos, hour: HourWindow, open: Nanos) => {
    const spent = windowSpend(hour);
    hourly.push({
      room: limit - spent - open,
      refuse: (hint) => {
        const wait = secondsUntilFits(hour.map((m) => ({ minute: m.minute, amount: m.spend })), open, amount, limit, now);
        return new AppError(
          "rate_limit_error",
          `${what} is ${usd(limit)} per hour: the last hour spent ${usd(spent)} and requests in flight reserve ${usd(open)}, and this request reserves up to ${usd(amount)}${hint}`,
          { retryAfterSeconds: wait ?? undefined, shouldRetry: false },
        );
      },
    });
  };
  if (s.accountSpendLimit !== null) hourlyCap("Hourly spend safety limit exceeded: the account's limit", s.accountSpendLimit, s.accountHour, s.reserved);
  const { key } = s;
  if (key.usdPerHour !== null) hourlyCap(`${KEY_LIMIT_REFUSALS.usd_per_hour}: the key's limit`, key.usdPerHour, key.hour, key.open.amount);
  const committed = key.spent + key.open.amount;
  const creditLimit = key.creditLimit;
  if (creditLimit !== null) {
    lifetime.push({
      room: creditLimit - committed,
      refuse: (hint) =>
        new AppError(
          "insufficient_credits",
          `${KEY_LIMIT_REFUSALS.credit}: the key's limit is ${usd(creditLimit)}, ${usd(committed)} is spent or reserved, and this request may cost up to ${usd(amount)}${hint}`,
          { shouldRetry: false },
        ),
    });
  }
  const { member } = s;
  if (member) {
    lifetime.push({
      room: member.cap - member.committed,
      refuse: (hint) =>
        new AppError(
          "insufficient_credits",
          `Member daily spend cap exceeded: your cap in this organization is ${usd(member.cap)} per day (UTC), ${usd(member.committed)} is spent or reserved today, and this request may cost up to ${usd(amount)}${hint}`,
          { shouldRetry: false },
        ),
    });
  }
  lifetime.push({
    room: s.available,
    refuse: (hint) =>
      new AppError(
        "insufficient_credits",
        `Insufficient credits: available balance ${usd(s.available)}, estimated cost ${usd(amount)}. Top up at ${policy.dashboardUrl}/topup${hint}`
          + (s.topupUnderWay ? ". An automatic top-up is under way: its credits arrive once the payment succeeds" : ""),
        { shouldRetry: false },
      ),
  });
  return { hourly, lifetime };
}

/** The key's hourly request limit: this request plus the settled and open ones must stay within it. */
function requestCapRefusal(key: ReservationSnapshot["key"], now: number): AppError | null {
  if (key.requestsPerHour === null) return null;
  const settled = windowRequests(key.hour);
  const counted = settled + key.open.requests;
  if (counted + 1 <= key.requestsPerHour) return null;
  const used = key.hour.map((m) => ({ minute: m.minute, amount: BigInt(m.requests) }));
  const wait = secondsUntilFits(used, BigInt(key.open.requests), 1n, BigInt(key.requestsPerHour), now);
  return new AppError(
    "rate_limit_error",
    `${KEY_LIMIT_REFUSALS.requests_per_hour}: ${counted} requests in the last hour, limit ${key.requestsPerHour}`,
    { retryAfterSeconds: wait ?? undefined, shouldRetry: false },
  );
}

/**
 * Decides whether a request can reserve its amount. Returns the error to answer with, or null to
 * reserve. Every limit is a hard cap: what the window (or the key's lifetime) settled, plus the
 * open reservations it counts, plus this request, must stay within it. Limits are checked in the
 * order a client can act on them: concurrency, hourly ceilings (account spend, key spend, key
 * requests), the key's lifetime limit, a member's daily cap, then the balance. A refusal over an amount names, when
 * `costOf` is known, the largest output ceiling (`max_tokens`, or the API's name for it) that
 * every cap on amounts would let through.
 */
export function decideReservation(s: ReservationSnapshot, request: ReservationRequest, policy: ReservationPolicy, now: number): AppError | null {
  if (s.inflight >= policy.maxConcurrentRequests) {
    return new AppError(
      "rate_limit_error",
      `Too many concurrent requests: at most ${policy.maxConcurrentRequests} chat requests may be in flight per account`,
      { retryAfterSeconds: 1, shouldRetry: true },
    );
  }
  const { hourly, lifetime } = spendCaps(s, request.amount, policy, now);
  const over = (cap: SpendCap) => request.amount > cap.room;
  const refuse = (cap: SpendCap) => {
    const room = [...hourly, ...lifetime].reduce<bigint>((least, c) => (c.room < least ? c.room : least), request.amount);
    const fitting = request.costOf ? largestFittingMaxTokens(request.costOf, room) : null;
    return cap.refuse(fitting === null ? "" : `. The largest ${policy.ceilingName ?? "max_tokens"} that fits is ${fitting}.`);
  };
  const hourlyCap = hourly.find(over);
  if (hourlyCap) return refuse(hourlyCap);
  const requests = requestCapRefusal(s.key, now);
  if (requests) return requests;
  const lifetimeCap = lifetime.find(over);
  return lifetimeCap ? refuse(lifetimeCap) : null;
}
