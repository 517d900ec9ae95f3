// Writes usage_logs rows the way the chat path does, so the export can be tested on its own.
import type { Database } from "../../src/db/database.ts";
import { exec } from "../../src/db/sql.ts";
import { usageLogId } from "../../src/db/store/billing/usage-log.ts";

export interface UsageLogSeed {
  accountId: string;
  createdAt: number;
  keyId?: string | null;
  model?: string;
  requestedModel?: string;
  promptTokens?: number;
  completionTokens?: number;
  costNanos?: bigint;
  latencyMs?: number;
  status?: "success" | "error";
  error?: string | null;
  id?: string;
  cachedTokens?: number;
  savedNanos?: bigint;
}

export async function insertUsageLog(db: Database, seed: UsageLogSeed): Promise<string> {
  const id = seed.id ?? usageLogId(seed.createdAt);
  await db.run(
    exec(
      `INSERT INTO usage_logs (id, account_id, key_id, created_at, model, requested_model, prompt_tokens, completion_tokens,
         cost_nanos, latency_ms, status, error, cached_tokens, saved_nanos) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id, seed.accountId, seed.keyId ?? null, seed.createdAt, seed.model ?? "gpt-5.4-mini",
      seed.requestedModel ?? seed.model ?? "gpt-5.4-mini", seed.promptTokens ?? 10, seed.completionTokens ?? 20,
      seed.costNanos ?? 1000n, seed.latencyMs ?? 250, seed.status ?? "success", seed.error ?? null, seed.cachedTokens ?? 0,
      seed.savedNanos ?? 0n,
    ),
  );
  return id;
}
