import Decimal from "decimal.js";
import {
  ACTOR_NOUNS, NAME_WORDS, NON_VOLUME_NOUNS, PERIODS, RATE_NOUNS, tokenize, WORK_NOUNS, YEAR_WORDS,
  type Period, type Token,
} from "./volume-words.ts";

// The counts in free text: of people and of work, with the multipliers
// between them ("40 developers, 200 requests each"), units ("10k", "1.2 million") and periods.
// docs/decisions.md ("Estimator") states the rules in prose; tests/unit/estimator pins them.

/** How many words may stand between a number and the noun it counts ("1.2 million short texts"). */
const MAX_WORDS_BETWEEN = 3;
/** How many words after a mention are read for its rate ("10k requests per day", "20 messages a day each"). */
const RATE_WORDS_AFTER = 4;
/** A work count said after a population without "each" is read per person only up to this many a day. */
const MAX_IMPLICIT_PER_PERSON_PER_DAY = 1_000;
/** Words that may join a population to a work count read per person ("500 users, 20 messages a day"). */
const CONNECTORS = new Set([
  "sending", "send", "sends", "making", "make", "makes", "doing", "do", "does", "who", "that", "with", "averaging",
  "average", "about", "around", "roughly", "approximately", "approx", "maybe", "say", "typically", "usually",
  "generating", "running", "asking", "using", "it", "at", "most", "up", "to", "like", "all", "day", "daily", "of",
  "them", "whom", "and", "perhaps", "probably", "which", "is", "are",
]);
/** Words that make the noun after them what a count is for: "per user", "a session", "every ticket". */
const PER_WORDS = new Set(["per", "a", "an", "every"]);
/** Words that say a count is the whole, not per person. */
const TOTAL_WORDS = new Set(["total", "overall", "combined", "altogether", "together", "across"]);

export interface Mention {
  count: Decimal;
  kind: "actor" | "work";
  noun: string;
  /** Token index of the number and of the noun. */
  at: number;
  nounAt: number;
  period: Period | null;
  /** "each" next to it: the count is for every one of the mention before. */
  each: boolean;
  /** "per user", "per ticket": the count is for every one of that noun. */
  per: string | null;
  total: boolean;
  parent: Mention | null;
}

const word = (tokens: Token[], i: number): string | null => {
  const token = tokens[i];
  return token?.kind === "word" ? token.text : null;
};

/** Up to `limit` words from `start` on, stopping at anything that is not a word. */
function wordsFrom(tokens: Token[], start: number, limit: number): string[] {
  const words: string[] = [];
  for (let i = start; words.length < limit; i++) {
    const text = word(tokens, i);
    if (text === null) break;
    words.push(text);
  }
  return words;
}

const kindOf = (noun: string): Mention["kind"] | null => (ACTOR_NOUNS.has(noun) ? "actor" : WORK_NOUNS.has(noun) ? "work" : null);
const isNoun = (text: string) => kindOf(text) !== null || NON_VOLUME_NOUNS.has(text);

/** A number that names, prices or dates something rather than counting it. */
function notACount(tokens: Token[], i: number): boolean {
  const token = tokens[i] as Extract<Token, { kind: "number" }>;
  const before = word(tokens, i - 1);
  if (token.money || before === "per") return true;
  if (before !== null && NAME_WORDS.has(before)) return true;
  return token.yearShaped && before !== null && YEAR_WORDS.has(before);
}

/** "20 times a day": times with a period after them count uses, each a request. */
const usesPerPeriod = (tokens: Token[], at: number): boolean =>
  word(tokens, at) === "times" && wordsFrom(tokens, at + 1, 2).some((text) => PERIODS.has(text));

/** Where the noun a number counts is: the first noun after it, else (for "users: 800") the nearest before it. */
function nounOf(tokens: Token[], i: number): number | null {
  const after = wordsFrom(tokens, i + 1, MAX_WORDS_BETWEEN + 1);
  const first = after.findIndex((text) => isNoun(text) || text === "of");
  if (first >= 0) return kindOf(after[first] as string) || usesPerPeriod(tokens, i + 1 + first) ? i + 1 + first : null;
  if (after.length > 0) return null;
  for (let j = i - 1; j >= 0 && j >= i - 1 - MAX_WORDS_BETWEEN; j--) {
    const text = word(tokens, j);
    if (text === null) return null;
    if (kindOf(text)) return j;
  }
  return null;
}

/** The rate said for a count: "50 rps", "every 10 seconds", "per week", "hourly"; null when none is said. */
function periodOf(tokens: Token[], noun: string, contextAt: number[]): Period | null {
  const own = RATE_NOUNS.get(noun);
  if (own !== undefined) return PERIODS.get(own) as Period;
  const last = contextAt.at(-1);
  const every = last === undefined ? undefined : tokens[last + 1];
  const unit = last === undefined ? null : word(tokens, last + 2);
  const interval = unit === null ? undefined : PERIODS.get(unit);
  if (last !== undefined && word(tokens, last) === "every" && every?.kind === "number" && interval && every.value.gt(0)) {
    return { perDay: interval.perDay.div(every.value), label: `every ${every.value.toString()} ${unit}` };
  }
  return contextAt.map((j) => PERIODS.get(word(tokens, j) as string)).find((p) => p !== undefined) ?? null;
}

/** An "each" that belongs to the number just after it ("each around 6 messages"), not to the words before. */
function eachLeadsANumber(tokens: Token[], at: number): boolean {
  for (let j = at + 1; j <= at + 3; j++) {
    const token = tokens[j];
    if (token?.kind === "number") return true;
    // "200 requests each from 12 devs": "each" is the requests', the devs are who.
    if (token?.kind !== "word" || isNoun(token.text) || ["from", "by", "for", "across", "among"].includes(token.text)) return false;
  }
  return false;
}

function mentionAt(tokens: Token[], i: number): Mention | null {
  const token = tokens[i];
  if (token?.kind !== "number" || notACount(tokens, i)) return null;
  const nounAt = nounOf(tokens, i);
  if (nounAt === null) return null;
  const noun = word(tokens, nounAt) as string;
  const [from, to] = nounAt > i ? [i + 1, nounAt] : [nounAt + 1, i];
  const contextAt = [...Array.from({ length: to - from }, (_, k) => from + k)];
  for (let j = Math.max(i, nounAt) + 1; word(tokens, j) !== null && j <= Math.max(i, nounAt) + RATE_WORDS_AFTER; j++) contextAt.push(j);
  const context = contextAt.map((j) => word(tokens, j) as string);
  const period = periodOf(tokens, noun, contextAt);
  const trailingEach = contextAt.some((j, k) =>
    (context[k] === "each" && !PERIODS.has(context[k + 1] ?? "") && !eachLeadsANumber(tokens, j)) || context[k] === "apiece");
  const leadingEach = wordsBackFrom(tokens, i - 1, 4).includes("each");
  const perLeading = perPersonBefore(tokens, i);
  const perAt = context.findIndex((text, k) => PER_WORDS.has(text) && kindOf(context[k + 1] ?? "") !== null);
  return {
    count: token.value, kind: kindOf(noun) ?? "work", noun, at: i, nounAt, period,
    each: trailingEach || leadingEach,
    per: perAt >= 0 ? (context[perAt + 1] as string) : perLeading,
    total: context.some((text) => TOTAL_WORDS.has(text)),
    parent: null,
  };
}

/** "each employee might ask 30 questions": the person a count is for, named before it. */
function perPersonBefore(tokens: Token[], i: number): string | null {
  for (let j = i - 1; j >= 1 && j >= i - 5; j--) {
    const text = word(tokens, j);
    if (text === null) return null;
    const before = word(tokens, j - 1);
    if (ACTOR_NOUNS.has(text)) return before === "each" || before === "every" || before === "per" ? text : null;
    if (isNoun(text)) return null;
  }
  return null;
}

/** Up to `limit` non-noun words going back from `start`. */
function wordsBackFrom(tokens: Token[], start: number, limit: number): string[] {
  const words: string[] = [];
  for (let j = start; j >= 0 && words.length < limit; j--) {
    const text = word(tokens, j);
    if (text === null || (isNoun(text) && text !== "each")) break;
    words.push(text);
  }
  return words;
}

const singular = (noun: string) => noun.replace(/(ies)$/, "y").replace(/s$/, "");
const sameNoun = (a: string, b: string) => singular(a) === singular(b);

/** Whether only joining words stand between a population and a work count ("500 users, 20 messages a day"). */
function joined(tokens: Token[], actor: Mention, work: Mention): boolean {
  for (let j = actor.nounAt + 1; j < work.at; j++) {
    const token = tokens[j] as Token;
    if (token.kind === "break" || token.kind === "number") return false;
    if (token.kind === "word" && !CONNECTORS.has(token.text) && !PERIODS.has(token.text)) return false;
  }
  return true;
}

function sameSentence(tokens: Token[], first: Mention, second: Mention): boolean {
  return tokens.slice(first.nounAt + 1, second.at).every((token) => token.kind !== "break");
}

/** The mention `m` is counted for each one of, if any. */
function parentOf(tokens: Token[], m: Mention, earlier: Mention[]): Mention | null {
  const previous = earlier.at(-1) ?? null;
  // "Each of our 80 agents": a population is counted per person only of another population.
  if (m.each) return m.kind === "work" || previous?.kind === "actor" ? previous : null;
  if (m.per !== null) {
    const perPerson = ACTOR_NOUNS.has(m.per);
    return earlier.findLast((e) => (perPerson ? e.kind === "actor" : sameNoun(e.noun, m.per as string))) ?? null;
  }
  if (m.kind !== "work" || m.total || previous?.kind !== "actor") return null;
  // "Each of our 80 agents handles 40 tickets a day".
  if (previous.each && sameSentence(tokens, previous, m)) return previous;
  if (!joined(tokens, previous, m)) return null;
  const perDay = m.count.mul(m.period?.perDay ?? 1);
  return perDay.lte(MAX_IMPLICIT_PER_PERSON_PER_DAY) ? previous : null;
}

/** The counts of people and work in `text` (lower case), in order, each linked to the one it is counted for. */
export function readMentions(text: string): Mention[] {
  const tokens = tokenize(text);
  const found: Mention[] = [];
  tokens.forEach((_, i) => {
    const m = mentionAt(tokens, i);
    if (m === null) return;
    m.parent = parentOf(tokens, m, found);
    found.push(m);
  });
  // "20 requests per user a week, 3,000 users": what a count is per may be named after it.
  for (const m of found) {
    if (m.parent !== null) continue;
    // "50 requests each from 12 devs": the people come after.
    if (m.each && m.kind === "work") m.parent = found.find((e) => e.kind === "actor") ?? null;
    if (m.parent !== null || m.per === null) continue;
    const per = m.per;
    m.parent = found.find((e) => e !== m && (ACTOR_NOUNS.has(per) ? e.kind === "actor" : sameNoun(e.noun, per))) ?? null;
  }
  return found;
}
