import type { RateLimitStore, RateLimitHit, RateLimitDecision } from "../../../core/store.ts";
import type { Database } from "../../database.ts";
import type { Dialect } from "../../migration-files.ts";
import { exec, first, int, type Work } from "../../sql.ts";

/**
 * Serializes transactions on `scope`. SQLite's IMMEDIATE transactions are already serial;
 * on Postgres, instances sharing the database queue on a transaction-scoped advisory lock,
 * so a count and the insert that follows it cannot interleave with another's.
 */
export function* lockScope(dialect: Dialect, scope: string): Work<void> {
  if (dialect === "postgres") yield* exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", scope);
}

function* hit(dialect: Dialect, input: RateLimitHit, record: boolean): Work<RateLimitDecision> {
  const since = input.now - input.windowMs;
  yield* lockScope(dialect, input.scope);
  yield* exec("DELETE FROM rate_events WHERE scope = ? AND at <= ?", input.scope, since);
  const window = yield* first(
    "SELECT COUNT(*) AS n, MIN(at) AS oldest FROM rate_events WHERE scope = ?",
    input.scope,
  );
  const count = int(window?.n);
  if (count >= input.limit) {
    const reopensAt = int(window?.oldest) + input.windowMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((reopensAt - input.now) / 1000)) };
  }
  if (!record) return { allowed: true, remaining: input.limit - count };
  yield* exec("INSERT INTO rate_events (id, scope, at) VALUES (?, ?, ?)", Bun.randomUUIDv7(), input.scope, input.now);
  return { allowed: true, remaining: input.limit - count - 1 };
}

function* countRecent(scope: string, since: number): Work<number> {
  const row = yield* first("SELECT COUNT(*) AS n FROM rate_events WHERE scope = ? AND at > ?", scope, since);
  return int(row?.n);
}

export const rateLimitStore = (db: Database): RateLimitStore => ({
  hitRateLimit: (input) => db.transaction(hit(db.dialect, input, true)),
  checkRateLimit: (input) => db.transaction(hit(db.dialect, input, false)),
  countRecentEvents: (scope, since) => db.run(countRecent(scope, since)),
});
