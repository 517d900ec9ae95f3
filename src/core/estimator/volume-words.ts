import Decimal from "decimal.js";

// The words the volume reader knows, and the text cut into numbers, words and breaks.
// docs/decisions.md ("Estimator") states the rules in prose; tests/unit/estimator pins them.

/** People: a count of them is a population, and a count of work "each" is multiplied by it. */
export const ACTOR_NOUNS = new Set([
  "user", "users", "developer", "developers", "dev", "devs", "engineer", "engineers", "programmer", "programmers",
  "coder", "coders", "employee", "employees", "customer", "customers", "client", "clients", "people", "person",
  "persons", "member", "members", "seat", "seats", "student", "students", "staff", "analyst", "analysts", "writer",
  "writers", "rep", "reps", "representative", "representatives", "agent", "agents", "operator", "operators",
  "moderator", "moderators", "researcher", "researchers", "editor", "editors", "recruiter", "recruiters", "designer",
  "designers", "tester", "testers", "intern", "interns", "manager", "managers", "accountant", "accountants", "nurse",
  "nurses", "mau", "maus", "dau", "daus", "wau", "advisor", "advisors", "marketer", "marketers", "salespeople", "seller", "sellers", "teammate", "teammates", "colleague", "colleagues", "subscriber", "subscribers",
  "visitor", "visitors", "player", "players", "lawyer", "lawyers", "doctor", "doctors", "teacher", "teachers",
]);

/** Work: each one is a request unless the text says how many requests it takes ("each around 6 messages"). */
export const WORK_NOUNS = new Set([
  "request", "requests", "call", "calls", "message", "messages", "chat", "chats", "query", "queries", "question",
  "questions", "prompt", "prompts", "completion", "completions", "reply", "replies", "response", "responses", "turn",
  "turns", "interaction", "interactions", "generation", "generations", "conversation", "conversations", "convo",
  "convos", "session", "sessions", "ticket", "tickets", "document", "documents", "doc", "docs", "file", "files",
  "email", "emails", "mails", "text", "texts", "article", "articles", "report", "reports", "record", "records", "task",
  "tasks", "job", "jobs", "transcript", "transcripts", "contract", "contracts", "invoice", "invoices", "receipt",
  "receipts", "pdf", "pdfs", "review", "reviews", "summary", "summaries", "translation", "translations", "post",
  "posts", "comment", "comments", "lookup", "lookups", "classification", "classifications", "pr", "prs", "commit",
  "commits", "req", "reqs", "msg", "msgs", "rps", "qps", "rpm", "qpm", "rph", "rpd", "run", "runs", "invocation", "invocations", "submission", "submissions", "application", "applications",
]);

/** Sizes, money, durations and the like: a number counting these is never a volume ("150 words", "6 months"). */
export const NON_VOLUME_NOUNS = new Set([
  "word", "words", "token", "tokens", "character", "characters", "char", "chars", "page", "pages", "line", "lines",
  "paragraph", "paragraphs", "sentence", "sentences", "kb", "mb", "gb", "byte", "bytes", "second", "seconds",
  "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "month", "months", "year", "years", "percent",
  "dollar", "dollars", "usd", "cent", "cents", "euro", "euros", "eur", "gbp", "bucks", "language", "languages",
  "model", "models", "time", "times", "x", "step", "steps", "product", "products", "k", "b", "o",
]);

/** Words before a number that make it part of a name ("GPT-4", "Claude 3.5"), not a count. */
export const NAME_WORDS = new Set([
  "gpt", "llama", "claude", "gemini", "mistral", "qwen", "grok", "kimi", "deepseek", "sonnet", "opus", "haiku", "phi",
  "o", "v", "version", "iso", "rfc", "top", "step", "level", "tier", "plan", "pack",
]);

/** Words before a year-shaped number that make it a year ("since 2021"). */
export const YEAR_WORDS = new Set(["in", "since", "by", "until", "from", "of", "early", "late", "mid", "before", "after"]);

/** Occurrences per day of each period, by the words that name it, and how the answer says it. */
const PERIODS_PER_DAY: [Decimal, string, string[]][] = [
  [new Decimal(86_400), "a second", ["second", "seconds", "sec"]],
  [new Decimal(1_440), "a minute", ["minute", "minutes", "min"]],
  [new Decimal(24), "an hour", ["hour", "hours", "hourly", "hr"]],
  [new Decimal(1), "a day", ["day", "days", "daily"]],
  [new Decimal(1).div(7), "a week", ["week", "weeks", "weekly"]],
  [new Decimal(1).div(30), "a month", ["month", "months", "monthly", "mo"]],
  [new Decimal(1).div(365), "a year", ["year", "years", "yearly", "annually"]],
];
export interface Period {
  perDay: Decimal;
  label: string;
}
export const PERIODS = new Map(
  PERIODS_PER_DAY.flatMap(([perDay, label, words]) => words.map((word) => [word, { perDay, label }] as const)),
);

/** Work nouns that carry their own period: "50 rps", "500 RPM". */
export const RATE_NOUNS = new Map<string, string>([
  ["rps", "second"], ["qps", "second"], ["rpm", "minute"], ["qpm", "minute"], ["rph", "hour"], ["rpd", "day"],
]);

/** Working hours, when a rate per hour, minute or second is said to hold only during them. */
export const BUSINESS_HOURS = { pattern: /\b(business|working|work|office) hours\b|\bwork ?days?\b|\bworking days?\b|\b9\s*(?:to|-)\s*5\b/, hours: 8 };

/** Numbers written in words, rewritten as digits before the text is cut into tokens. */
const SPELLED: [RegExp, string][] = [
  [/\ba couple(?: of)? (hundred|thousand)\b/g, "2 $1"],
  [/\b(?:a few|few) (hundred|thousand)\b/g, "3 $1"],
  [/\bseveral (hundred|thousand)\b/g, "5 $1"],
  [/\bhundreds of\b/g, "300"],
  [/\bthousands of\b/g, "3000"],
  [/\bdozens of\b/g, "36"],
  [/\ba dozen\b/g, "12"],
  [/\ba (hundred|thousand|million)\b/g, "1 $1"],
  [/\b(?:single|solo|lone|one)\b/g, "1"],
  [/\b(?:just|only) me\b/g, "1 user"],
];
const SMALL_NUMBERS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
const TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];

function spelledToDigits(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SPELLED) out = out.replace(pattern, replacement);
  out = out.replace(/\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b/g, (w) => String(SMALL_NUMBERS.indexOf(w) + 2));
  return out.replace(/\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\b/g, (w) => String((TENS.indexOf(w) + 2) * 10));
}

export type Token =
  | { kind: "number"; value: Decimal; money: boolean; yearShaped: boolean }
  | { kind: "word"; text: string }
  | { kind: "comma" }
  | { kind: "break" };

const MULTIPLIERS: Record<string, number> = {
  k: 1_000, hundred: 100, thousand: 1_000, m: 1_000_000, million: 1_000_000, bn: 1_000_000_000, billion: 1_000_000_000,
};

// A number is "2000", "2,000", "1.5", "10k", "2m", "3 million", "$50", "20%"; a sentence or line ends a phrase, a comma a clause.
const TOKEN =
  /([$€£]\s?)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:(k|m|bn)\b|\s*(hundred|thousand|million|billion)\b)?(\s?%)?|[a-z]+|,|[.!?;\n]/g;

/** `text` (lower case) as tokens, spelled-out numbers read as digits. */
export function tokenize(text: string): Token[] {
  return [...spelledToDigits(text).matchAll(TOKEN)].map((match): Token => {
    const [whole, currency, integer, fraction, letterSuffix, wordSuffix, percent] = match;
    if (integer === undefined) {
      if (whole === ",") return { kind: "comma" };
      return /^[a-z]/.test(whole) ? { kind: "word", text: whole } : { kind: "break" };
    }
    const multiplier = MULTIPLIERS[letterSuffix ?? wordSuffix ?? ""] ?? 1;
    const plain = fraction === undefined && multiplier === 1 && /^\d{4}$/.test(integer);
    return {
      kind: "number",
      value: new Decimal(integer.replaceAll(",", "") + (fraction ?? "")).mul(multiplier),
      money: currency !== undefined || percent !== undefined,
      yearShaped: plain && Number(integer) >= 1900 && Number(integer) <= 2100,
    };
  });
}
