/**
 * Store code is written once for both dialects as generator functions that yield queries
 * and receive their rows. The SQLite driver answers them synchronously, so a transaction
 * runs to its end in one turn of the event loop and nothing can interleave with it; the
 * Postgres driver answers them over the network inside a real transaction.
 */
export interface Query {
  /** SQL with `?` placeholders; the Postgres driver renumbers them. */
  text: string;
  params: readonly unknown[];
}

export type Row = Record<string, unknown>;
export type Work<T> = Generator<Query, T, Row[]>;

/** Runs a statement and returns its rows. */
export function* rows<T extends Row = Row>(text: string, ...params: unknown[]): Work<T[]> {
  return (yield { text, params }) as T[];
}

/** Runs a statement and returns its first row, if any. */
export function* first<T extends Row = Row>(text: string, ...params: unknown[]): Work<T | undefined> {
  const result = yield* rows<T>(text, ...params);
  return result[0];
}

/** Runs a statement for its effect. */
export function* exec(text: string, ...params: unknown[]): Work<void> {
  yield { text, params };
}

/** Drives `work` to completion, answering each query with `answer`. */
export function driveSync<T>(work: Work<T>, answer: (query: Query) => Row[]): T {
  let step = work.next();
  while (!step.done) step = work.next(answer(step.value));
  return step.value;
}

export async function driveAsync<T>(work: Work<T>, answer: (query: Query) => Promise<Row[]>): Promise<T> {
  let step = work.next();
  while (!step.done) step = work.next(await answer(step.value));
  return step.value;
}

// Column values come back as bigint (SQLite with safeIntegers, Postgres int8), as strings
// (Postgres sums are numeric) or as null; these read them into the types the store returns.
export const int = (value: unknown): number => Number(value ?? 0);
export const big = (value: unknown): bigint => BigInt((value as bigint | string | number | null) ?? 0);
export const intOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
export const bigOrNull = (value: unknown): bigint | null =>
  value === null || value === undefined ? null : BigInt(value as bigint | string | number);

/**
 * Whether `text` can be a parameter on every dialect: Postgres refuses text holding a NUL with
 * an error. An id from a URL path that cannot names no row; the store answers none for it.
 */
export const storableText = (text: string): boolean => !text.includes("\u0000");
