import { nanos } from "../../core/money.ts";
import type { UsageCursor, UsageExportRow, UsageExportStore } from "../../core/usage-export.ts";
import type { Database } from "../database.ts";
import { big, int, rows, type Row, type Work } from "../sql.ts";

const COLUMNS = "id, created_at, model, requested_model, prompt_tokens, completion_tokens, cost_nanos, latency_ms, status";

/** A `usage_logs` row as core reads it. */
export const toUsage = (r: Row): UsageExportRow => ({
  id: r.id as string,
  createdAt: int(r.created_at),
  model: r.model as string,
  requestedModel: r.requested_model as string,
  promptTokens: int(r.prompt_tokens),
  completionTokens: int(r.completion_tokens),
  cost: nanos(big(r.cost_nanos)),
  latencyMs: int(r.latency_ms),
  status: r.status as string,
});

// Keyset pages over (created_at, id): rows written while an export runs cannot shift a page.
function* usageLogPage(accountId: string, after: UsageCursor | null, limit: number): Work<UsageExportRow[]> {
  const found = after === null
    ? yield* rows(
        `SELECT ${COLUMNS} FROM usage_logs WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
        accountId, limit,
      )
    : yield* rows(
        `SELECT ${COLUMNS} FROM usage_logs WHERE account_id = ? AND (created_at, id) < (?, ?)
         ORDER BY created_at DESC, id DESC LIMIT ?`,
        accountId, after.createdAt, after.id, limit,
      );
  return found.map(toUsage);
}

export const usageExportStore = (db: Database): UsageExportStore => ({
  usageLogPage: (accountId, after, limit) => db.run(usageLogPage(accountId, after, limit)),
});
