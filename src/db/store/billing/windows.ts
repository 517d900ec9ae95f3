import { dayMinuteOf, minuteOf, windowStartMinute, type MinuteUsage } from "../../../core/billing/hour-window.ts";
import { nanos, type Nanos } from "../../../core/money.ts";
import { big, exec, first, int, rows, type Work } from "../../sql.ts";
import type { Held } from "./usage-log.ts";

// Usage-window scopes: spend per account (the safety limit), spend and requests per key.
export const accountScope = (accountId: string) => `a:${accountId}`;
export const keyScope = (keyId: string) => `k:${keyId}`;
// A member's spend in an organization per UTC day (its cap), one bucket at the day's first minute.
export const memberScope = (orgId: string, userId: string) => `m:${orgId}:${userId}`;

/** The rolling hour's settled usage of each scope, minute by minute, oldest first; absent scopes used nothing. */
export function* hourWindows(scopes: string[], now: number): Work<Map<string, MinuteUsage[]>> {
  const placeholders = scopes.map(() => "?").join(", ");
  const found = yield* rows(
    `SELECT scope, minute, spend_nanos, requests FROM usage_windows WHERE scope IN (${placeholders}) AND minute > ?
     ORDER BY scope, minute`,
    ...scopes, windowStartMinute(now),
  );
  const windows = new Map<string, MinuteUsage[]>();
  for (const r of found) {
    const minutes = windows.get(r.scope as string) ?? [];
    minutes.push({ minute: int(r.minute), spend: nanos(big(r.spend_nanos)), requests: int(r.requests) });
    windows.set(r.scope as string, minutes);
  }
  return windows;
}

/**
 * One step of the walk that keeps `usage_windows` from growing for ever (the sweeper's): each
 * scope's old minutes are a range of the primary key (scope, minute), so the walk seeks scope
 * after scope and deletes that range, with no index on the minute alone (which every settlement
 * would have to write). A scope with more old rows than the step has left is revisited.
 */
export function* pruneUsageWindows(after: string | null, beforeMinute: number, limits: { scopes: number; rows: number }): Work<string | null> {
  let cursor = after;
  let left = limits.rows;
  for (let n = 0; n < limits.scopes && left > 0; n++) {
    const next = cursor === null
      ? yield* first("SELECT scope FROM usage_windows ORDER BY scope LIMIT 1")
      : yield* first("SELECT scope FROM usage_windows WHERE scope > ? ORDER BY scope LIMIT 1", cursor);
    if (!next) return null;
    const scope = next.scope as string;
    const old = yield* rows("SELECT minute FROM usage_windows WHERE scope = ? AND minute < ? ORDER BY minute LIMIT ?", scope, beforeMinute, left);
    if (old.length > 0) {
      yield* exec("DELETE FROM usage_windows WHERE scope = ? AND minute <= ?", scope, old[old.length - 1]!.minute);
      left -= old.length;
    }
    if (left > 0) cursor = scope; // else the scope may have more: the next step starts with it again
  }
  return cursor;
}

function* addToWindows(entries: { scope: string; spend: Nanos; requests: number }[], minute: number): Work<void> {
  yield* exec(
    `INSERT INTO usage_windows (scope, minute, spend_nanos, requests) VALUES ${entries.map(() => "(?, ?, ?, ?)").join(", ")}
     ON CONFLICT (scope, minute) DO UPDATE SET spend_nanos = usage_windows.spend_nanos + excluded.spend_nanos,
       requests = usage_windows.requests + excluded.requests`,
    ...entries.flatMap((e) => [e.scope, minute, e.spend, e.requests]),
  );
}

const COUNT_ON_KEY = `UPDATE api_keys SET total_spend_nanos = total_spend_nanos + ?, total_requests = total_requests + ?, last_used_at = ?
  WHERE id = ? RETURNING owner_id`;

/**
 * A request that ended adds its cost and itself (once: `requests` is 0 for a late charge) to its
 * key and the hourly windows, and a member's key its cost to the member's day.
 */
export function* countEnded(held: Held, cost: Nanos, requests: number, now: number): Work<void> {
  const key = yield* first(COUNT_ON_KEY, cost, requests, now, held.keyId);
  yield* addToWindows(
    [
      { scope: accountScope(held.accountId), spend: cost, requests: 0 },
      { scope: keyScope(held.keyId), spend: cost, requests },
    ],
    minuteOf(now),
  );
  const owner = key?.owner_id as string | null | undefined;
  if (owner && cost > 0n) yield* addToWindows([{ scope: memberScope(held.accountId, owner), spend: cost, requests: 0 }], dayMinuteOf(now));
}
