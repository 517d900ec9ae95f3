import type { Nanos } from "../../../core/money.ts";
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
  status: "success" | "error";
  error: string | null;
  now: number;
}

/** The usage log's columns, shared by the single write and the settlement batch. */
export const INSERT_USAGE_LOG = `INSERT INTO usage_logs (id, account_id, key_id, created_at, model, requested_model, prompt_tokens,
  completion_tokens, cost_nanos, latency_ms, status, error, cached_tokens, saved_nanos)`;

export function* writeUsageLog(log: UsageLog): Work<void> {
  yield* exec(
    `${INSERT_USAGE_LOG} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    Bun.randomUUIDv7(), log.held.accountId, log.held.keyId, log.now, log.held.model, log.held.requestedModel,
    log.promptTokens, log.completionTokens, log.cost, log.latencyMs, log.status, log.error, log.cachedTokens ?? 0, log.saved ?? 0n,
  );
}
