import type { AuditEvent, AuditEventType, AuditStore, NewAuditEvent } from "../../../core/accounts/audit.ts";
import type { Database } from "../../database.ts";
import { exec, int, rows, type Row, type Work } from "../../sql.ts";

/** Writes one audit event, in the caller's transaction when there is one. */
export function* recordAudit(event: NewAuditEvent): Work<void> {
  yield* exec(
    "INSERT INTO audit_events (id, account_id, at, type, ip, detail) VALUES (?, ?, ?, ?, ?, ?)",
    Bun.randomUUIDv7(), event.accountId, event.at, event.type, event.ip, event.detail,
  );
}

const toEvent = (r: Row): AuditEvent => ({
  id: r.id as string,
  accountId: r.account_id as string,
  at: int(r.at),
  type: r.type as AuditEventType,
  ip: (r.ip as string | null) ?? null,
  detail: (r.detail as string | null) ?? null,
});

// Ids are UUIDv7, so they break ties between events of the same millisecond in insertion order.
function* auditEvents(accountId: string | null, offset: number, limit: number): Work<AuditEvent[]> {
  const columns = "id, account_id, at, type, ip, detail";
  const found = accountId === null
    ? yield* rows(`SELECT ${columns} FROM audit_events ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`, limit, offset)
    : yield* rows(
        `SELECT ${columns} FROM audit_events WHERE account_id = ? ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`,
        accountId, limit, offset,
      );
  return found.map(toEvent);
}

export const auditStore = (db: Database): AuditStore => ({
  recordAudit: (event) => db.transaction(recordAudit(event)),
  auditEvents: (accountId, offset, limit) => db.run(auditEvents(accountId, offset, limit)),
});
