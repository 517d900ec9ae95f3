// Invitations counted against their limits (core/orgs/invitation-limits.ts) in the transaction
// that sends them, as rate-limit events: the count and the send cannot be split by another
// instance, and a refused invitation sends nothing and counts nothing.
import type { SendLimit, SendLimited } from "../../../core/orgs/invitation-limits.ts";
import type { Dialect } from "../../migration-files.ts";
import { exec, first, int, type Work } from "../../sql.ts";
import { lockScope } from "../accounts/rate-limits.ts";

/** The first full window of `limits` (the one that reopens last), or null after recording one send in each scope. */
export function* countSend(dialect: Dialect, limits: readonly SendLimit[], now: number): Work<SendLimited | null> {
  const scopes = [...new Set(limits.map((l) => l.scope))].sort();
  // Always in the same order, so that two sends sharing two scopes cannot wait on each other.
  for (const scope of scopes) yield* lockScope(dialect, scope);
  let refusal: SendLimited | null = null;
  for (const limit of limits) {
    const since = now - limit.windowMs;
    const count = int((yield* first("SELECT COUNT(*) AS n FROM rate_events WHERE scope = ? AND at > ?", limit.scope, since))?.n);
    if (count < limit.limit) continue;
    // The window has room again when enough of its sends have left it for one more to fit.
    const freeing = yield* first(
      "SELECT at FROM rate_events WHERE scope = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?", limit.scope, since, count - limit.limit,
    );
    const retryAfterSeconds = Math.max(1, Math.ceil((int(freeing?.at) + limit.windowMs - now) / 1000));
    if (!refusal || retryAfterSeconds > refusal.retryAfterSeconds) refusal = { limited: limit, retryAfterSeconds };
  }
  if (refusal) return refusal;
  const longest = new Map<string, number>();
  for (const limit of limits) longest.set(limit.scope, Math.max(longest.get(limit.scope) ?? 0, limit.windowMs));
  for (const [scope, windowMs] of longest) {
    yield* exec("DELETE FROM rate_events WHERE scope = ? AND at <= ?", scope, now - windowMs);
    yield* exec("INSERT INTO rate_events (id, scope, at) VALUES (?, ?, ?)", Bun.randomUUIDv7(), scope, now);
  }
  return null;
}
