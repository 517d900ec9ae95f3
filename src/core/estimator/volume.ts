import Decimal from "decimal.js";
import { readMentions, type Mention } from "./volume-mentions.ts";
import { BUSINESS_HOURS, type Period } from "./volume-words.ts";

// Daily request volume read out of free text. docs/decisions.md ("Estimator") states the rules
// in prose; tests/unit/estimator pins them.

/** Assumed when the text states no volume at all. */
export const DEFAULT_REQUESTS_PER_DAY = 1_000;
/** What one user is assumed to send a day when only a number of users is given. */
export const REQUESTS_PER_USER_PER_DAY = 10;
/** Volumes above this are typos or jokes; the estimate stays a readable number. */
export const MAX_REQUESTS_PER_DAY = 1_000_000_000;

export type Volume =
  | { basis: "stated"; requestsPerDay: number }
  | { basis: "users"; requestsPerDay: number; users: number }
  | { basis: "assumed"; requestsPerDay: number };

export interface VolumeReading {
  volume: Volume;
  /**
   * How a stated volume was worked out, when it took more than reading one number:
   * "2,000 conversations × 6 messages a day", "5 requests a minute over 8 business hours".
   */
  working: string | null;
}

const A_DAY: Period = { perDay: new Decimal(1), label: "a day" };

const clampDaily = (value: Decimal): number =>
  Decimal.min(Decimal.max(value.ceil(), 1), MAX_REQUESTS_PER_DAY).toNumber();

const groupThousands = (n: Decimal): string => n.toString().replace(/^(\d+)/, (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ","));

/** `m` and the mentions it is counted for, outermost first: [40 developers, 200 requests]. */
function chainOf(m: Mention): Mention[] {
  const chain: Mention[] = [];
  for (let link: Mention | null = m; link !== null && !chain.includes(link); link = link.parent) chain.unshift(link);
  return chain;
}

interface Rate {
  perDay: Decimal;
  /** Whether the text gave a period for it, rather than a bare count read as per day. */
  rated: boolean;
  working: string | null;
}

/** A work mention as requests a day: the product of its chain's counts, at the rate its chain states. */
function rateOf(m: Mention, businessHours: boolean): Rate {
  const chain = chainOf(m);
  const count = chain.reduce((product, link) => product.mul(link.count), new Decimal(1));
  // People's periods ("500 daily active users") say who, not how often; the innermost work rate wins.
  const said = chain.filter((link) => link.kind === "work").map((link) => link.period).findLast((p) => p !== null) ?? null;
  const period = said ?? A_DAY;
  const shortened = businessHours && period.perDay.gt(1);
  const perDay = count.mul(period.perDay).mul(shortened ? BUSINESS_HOURS.hours / 24 : 1);
  const counts = chain.map((link) => `${groupThousands(link.count)} ${link.noun}`).join(" × ");
  const working = chain.length > 1 || shortened
    ? `${counts} ${period.label}${shortened ? ` over ${BUSINESS_HOURS.hours} business hours` : ""}`
    : null;
  return { perDay, rated: said !== null, working };
}

/**
 * Daily request volume. Each count of work is a request, times every count it is said to be
 * "each" or "per" of; the largest such volume wins, since an estimate should err high. Only
 * people: each sends REQUESTS_PER_USER_PER_DAY. Nothing: DEFAULT_REQUESTS_PER_DAY.
 */
export function readVolume(text: string): VolumeReading {
  const lower = text.toLowerCase();
  const found = readMentions(lower);
  const parents = new Set(found.map((m) => m.parent));
  const businessHours = BUSINESS_HOURS.pattern.test(lower);
  const all = found.filter((m) => m.kind === "work" && !parents.has(m)).map((m) => rateOf(m, businessHours));
  // A count with a rate ("400 queries a day") says more about traffic than one without ("over 5,000 PDFs").
  const rated = all.filter((rate) => rate.rated);
  const rates = rated.length > 0 ? rated : all;
  if (rates.length > 0) {
    const top = rates.reduce((best, next) => (next.perDay.gt(best.perDay) ? next : best));
    return { volume: { basis: "stated", requestsPerDay: clampDaily(top.perDay) }, working: top.working };
  }
  const people = found.filter((m) => m.kind === "actor").map((m) => chainOf(m).reduce((n, link) => n.mul(link.count), new Decimal(1)));
  if (people.length > 0) {
    const users = Decimal.max(...people);
    return {
      volume: { basis: "users", users: clampDaily(users), requestsPerDay: clampDaily(users.mul(REQUESTS_PER_USER_PER_DAY)) },
      working: null,
    };
  }
  return { volume: { basis: "assumed", requestsPerDay: DEFAULT_REQUESTS_PER_DAY }, working: null };
}
