import type { Nanos } from "../../../core/money.ts";
import { and, gte, type SQL } from "drizzle-orm";
import { usageLogs } from "../../schema/sqlite.ts";
import { exec, type Work } from "../../sql.ts";

/** A reservation taken out of the reservations table, to be settled or released. */
export interface Held {
  accountId: string;
  keyId: string;
  model: string;
  requestedModel: string;
  amount: Nanos;
}

interface UsageLog {
  held: Held;
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  saved?: Nanos;
  cost: Nanos;
  latencyMs: number;
  /** `refused`: the key's allowlists refused the request; the CSV calls it `error` (`usageCsvStatus`). */
  status: "success" | "error" | "refused";
  error: string | null;
  now: number;
}

/**
 * A usage row's id: a UUIDv7 whose time is the row's `created_at`, so that the primary key also
 * orders the rows by time and the operator console's reads since a moment (`usageSince`) need
 * no index of their own on the table every request writes to.
 */
export const usageLogId = (createdAt: number): string => Bun.randomUUIDv7("hex", createdAt);

// Rows written before the ids were made from `created_at` have the id of the moment they were
// written, a few milliseconds after it: a minute's slack keeps them in their range.
const ID_SLACK_MS = 60_000;

/** The rows created at or after `since`, by the primary key's range and then exactly. */
export const usageSince = (since: number): SQL => {
  const hex = Math.max(0, since - ID_SLACK_MS).toString(16).padStart(12, "0");
  // A UUID's first 12 hex digits (in 8 and 4) are its milliseconds: every id from that moment on sorts after them.
  return and(gte(usageLogs.id, `${hex.slice(0, 8)}-${hex.slice(8)}`), gte(usageLogs.createdAt, since)) as SQL;
};

/** The usage log's columns, shared by the single write and the settlement batch. */
export const INSERT_USAGE_LOG = `INSERT INTO usage_logs (id, account_id, key_id, created_at, model, requested_model, prompt_tokens,
  completion_tokens, cost_nanos, latency_ms, status, error, cached_tokens, saved_nanos)`;

export function* writeUsageLog(log: UsageLog): Work<void> {
  yield* exec(
    `${INSERT_USAGE_LOG} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    usageLogId(log.now), log.held.accountId, log.held.keyId, log.now, log.held.model, log.held.requestedModel,
    log.promptTokens, log.completionTokens, log.cost, log.latencyMs, log.status, log.error, log.cachedTokens ?? 0, log.saved ?? 0n,
  );
}
