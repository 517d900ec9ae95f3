import Decimal from "decimal.js";

// Reads the spec's estimator hints out of free text. Keyword rules, deliberately simple and
// predictable: docs/decisions.md ("Estimator") states them in prose, and the unit tests pin them.

/** Assumed when the text states no volume at all. */
export const DEFAULT_REQUESTS_PER_DAY = 1_000;
/** What one user is assumed to send a day when only a number of users is given. */
export const REQUESTS_PER_USER_PER_DAY = 10;
/** Volumes above this are typos or jokes; the estimate stays a readable number. */
export const MAX_REQUESTS_PER_DAY = 1_000_000_000;
/** How many words may stand between a number and the word it counts ("500 daily active users"). */
const MAX_WORDS_BETWEEN = 3;
/** How many words after a mention are read for its rate ("10k requests per day", "20 messages a day each"). */
const RATE_WORDS_AFTER = 4;

export type Volume =
  | { basis: "stated"; requestsPerDay: number }
  | { basis: "users"; requestsPerDay: number; users: number }
  | { basis: "assumed"; requestsPerDay: number };

export interface UsageHints {
  volume: Volume;
  /** "code": more input and more output per request. */
  code: boolean;
  /** "document" or "analysis": more input per request. */
  documents: boolean;
  /** "extraction": less output per request. */
  extraction: boolean;
  /** "cheap" or "high volume": the budget model. */
  cheap: boolean;
  /** "reason" or "complex": the frontier model. */
  reasoning: boolean;
  /** A long prompt sent again with every request (a system prompt, an agent's history): mostly cache reads. */
  repeatedPrompt: boolean;
}

const FLAGS = {
  code: /\bcod(e|es|ed|ing|er|ers|ebase)\b/,
  documents: /\bdocument\w*|\banaly[sz]\w*/,
  extraction: /\bextract\w*/,
  cheap: /\bcheap\w*|\bhigh[\s-]*volumes?\b|\blow[\s-]*cost\b/,
  reasoning: /\breason(s|ed|ing)?\b|\bcomplex\w*/,
  repeatedPrompt: /\bsystem prompts?\b|\b(same|long|shared|fixed|repeated)\s+(\w+\s+)?(prompts?|instructions|context)\b|\bagents?\b|\bagentic\b|\bclaude code\b|\bcach(e|es|ed|ing)\b/,
} as const;

const USER_WORDS = new Set(["user", "users"]);
const EVENT_WORDS = new Set(["request", "requests", "message", "messages", "chat", "chats", "call", "calls"]);
const PER_WORDS = new Set(["per", "each", "every", "a", "an"]);
const PERSON_WORDS = new Set(["user", "person", "customer", "member"]);

/** How often each period fits in a day, by the words that name it. */
const PERIODS_PER_DAY: [Decimal, string[]][] = [
  [new Decimal(86_400), ["second", "seconds", "sec"]],
  [new Decimal(1_440), ["minute", "minutes", "min"]],
  [new Decimal(24), ["hour", "hours", "hourly", "hr"]],
  [new Decimal(1), ["day", "days", "daily"]],
  [new Decimal(1).div(7), ["week", "weeks", "weekly"]],
  [new Decimal(1).div(30), ["month", "months", "monthly", "mo"]],
  [new Decimal(1).div(365), ["year", "years", "yearly", "annually"]],
];
const PERIODS = new Map(PERIODS_PER_DAY.flatMap(([factor, words]) => words.map((word) => [word, factor] as const)));
const ONCE_A_DAY = new Decimal(1);

const MULTIPLIERS: Record<string, number> = { k: 1_000, thousand: 1_000, m: 1_000_000, million: 1_000_000 };

type Token = { kind: "number"; value: Decimal } | { kind: "word"; text: string } | { kind: "break" };

// A number is "2000", "2,000", "1.5", "10k", "2m", "3 million"; a sentence or line ends a phrase.
const TOKEN = /(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:(k|m)\b|\s*(thousand|million)\b)?|[a-z]+|[.!?;\n]/g;

function tokenize(text: string): Token[] {
  return [...text.matchAll(TOKEN)].map((match): Token => {
    const [whole, integer, fraction, letterSuffix, wordSuffix] = match;
    if (integer === undefined) return /^[a-z]/.test(whole) ? { kind: "word", text: whole } : { kind: "break" };
    const multiplier = MULTIPLIERS[letterSuffix ?? wordSuffix ?? ""] ?? 1;
    return { kind: "number", value: new Decimal(integer.replaceAll(",", "") + (fraction ?? "")).mul(multiplier) };
  });
}

/** The words from `start` on, up to `limit` of them, stopping at a number or a break. */
function phrase(tokens: Token[], start: number, limit: number): string[] {
  const words: string[] = [];
  for (let i = start; i < tokens.length && words.length < limit; i++) {
    const token = tokens[i] as Token;
    if (token.kind !== "word") break;
    words.push(token.text);
  }
  return words;
}

interface Mention {
  count: Decimal;
  unit: "users" | "events";
  /** Words between the number and its unit and just after the pair: where its rate is said. */
  context: string[];
}

/** The unit word a number counts: the nearest one after it, or else the nearest one before it. */
function mentionAt(tokens: Token[], index: number, count: Decimal): Mention | null {
  const unitOf = (word: string) => (USER_WORDS.has(word) ? "users" : EVENT_WORDS.has(word) ? "events" : null);
  const after = phrase(tokens, index + 1, MAX_WORDS_BETWEEN + 1);
  const forward = after.findIndex((word) => unitOf(word) !== null);
  if (forward >= 0) {
    const between = after.slice(0, forward);
    const rest = phrase(tokens, index + forward + 2, RATE_WORDS_AFTER);
    return { count, unit: unitOf(after[forward] as string) as Mention["unit"], context: [...between, ...rest] };
  }
  const before: string[] = [];
  for (let i = index - 1; i >= 0 && before.length <= MAX_WORDS_BETWEEN; i--) {
    const token = tokens[i] as Token;
    if (token.kind !== "word") break;
    const unit = unitOf(token.text);
    if (unit) return { count, unit, context: [...before.toReversed(), ...phrase(tokens, index + 1, RATE_WORDS_AFTER)] };
    before.push(token.text);
  }
  return null;
}

/** The first period in the context ("per day", "hourly", "a month"), as occurrences per day; none means per day. */
const dailyFactor = (context: string[]): Decimal =>
  context.map((word) => PERIODS.get(word)).find((factor) => factor !== undefined) ?? ONCE_A_DAY;

/** "20 messages per user", "a customer", "each": a count for every user rather than in total. "each day" is a period. */
const isPerUser = (context: string[]): boolean =>
  context.some((word, i) => {
    if (word === "each") return !PERIODS.has(context[i + 1] ?? "");
    return PERSON_WORDS.has(word) && PER_WORDS.has(context[i - 1] ?? "");
  });

const clampDaily = (value: Decimal): number =>
  Decimal.min(Decimal.max(value.ceil(), 1), MAX_REQUESTS_PER_DAY).toNumber();

/**
 * Daily request volume from numbers near users, requests, messages, chats or calls. Request
 * counts win over user counts; the largest stated rate wins, since an estimate should err
 * high. A count said per user is multiplied by the number of users. Only users: each sends
 * REQUESTS_PER_USER_PER_DAY. Nothing: DEFAULT_REQUESTS_PER_DAY.
 */
function readVolume(tokens: Token[]): Volume {
  const mentions = tokens.flatMap((token, i) => (token.kind === "number" ? [mentionAt(tokens, i, token.value)] : []))
    .filter((mention): mention is Mention => mention !== null);
  const userCounts = mentions.filter((m) => m.unit === "users").map((m) => m.count);
  const users = userCounts.length > 0 ? Decimal.max(...userCounts) : null;
  const dailyEvents = mentions
    .filter((m) => m.unit === "events")
    .map((m) => m.count.mul(dailyFactor(m.context)).mul(isPerUser(m.context) ? (users ?? 1) : 1));
  if (dailyEvents.length > 0) return { basis: "stated", requestsPerDay: clampDaily(Decimal.max(...dailyEvents)) };
  if (users !== null) {
    return { basis: "users", users: clampDaily(users), requestsPerDay: clampDaily(users.mul(REQUESTS_PER_USER_PER_DAY)) };
  }
  return { basis: "assumed", requestsPerDay: DEFAULT_REQUESTS_PER_DAY };
}

/** The spec's estimator hints found in `text` (case-insensitive). */
export function readUsageHints(text: string): UsageHints {
  const lower = text.toLowerCase();
  return {
    volume: readVolume(tokenize(lower)),
    code: FLAGS.code.test(lower),
    documents: FLAGS.documents.test(lower),
    extraction: FLAGS.extraction.test(lower),
    cheap: FLAGS.cheap.test(lower),
    reasoning: FLAGS.reasoning.test(lower),
    repeatedPrompt: FLAGS.repeatedPrompt.test(lower),
  };
}
