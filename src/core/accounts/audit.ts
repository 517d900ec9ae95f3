import { AppError } from "../errors.ts";

// The audit log: every security event of an account, for its owner (`GET /account/audit`) and
// the operator. Types are a closed list so that readers (dashboard, console, CLI) can word them.

export const AUDIT_EVENT_TYPES = [
  "signup",
  "email_verified",
  "login",
  "login_failed",
  "password_changed",
  "password_reset",
  "session_ended",
  "totp_enabled",
  "totp_disabled",
  "key_created",
  "key_rotated",
  "key_revoked",
  "key_updated",
  "credits_granted",
  "banned",
  "unbanned",
  // The operator's CLI: an account it made, deleted, or whose operator role it gave or took.
  "account_created",
  "account_deleted",
  "promoted",
  "demoted",
  // An operator's catalog edit (enable, disable, prices, aliases), recorded on the operator's own account.
  "model_updated",
  // Organizations: recorded on the organization's account, naming who acted; a transfer also on the person's.
  "org_created",
  "org_renamed",
  "org_deleted",
  "invitation_sent",
  "invitation_revoked",
  "member_joined",
  "member_changed",
  "member_removed",
  "credits_transferred",
  // An operator's refund of a purchase through Stripe (the console), recorded on the buyer's account.
  "purchase_refunded",
  // Automatic top-up: turned on or changed, turned off (by the account, or by a declined card),
  // an off-session payment asked of Stripe, and its credits arrived.
  "auto_topup_set",
  "auto_topup_off",
  "auto_topup_started",
  "auto_topup_paid",
] as const;

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/**
 * The account the CLI's catalog edits are recorded on. The console records them on the
 * operator's own account; the CLI acts as no account, and an account id is a UUID, so this one
 * is never a customer's: the events are in the operator's log (`GET /admin/audit`) only.
 */
export const CLI_AUDIT_ACCOUNT = "cli";

/** One event as recorded. `ip` is null for events without a client (the CLI, the operator's tools). */
export interface AuditEvent {
  id: string;
  accountId: string;
  at: number;
  type: AuditEventType;
  ip: string | null;
  /** A short sentence for people; never a token, password or secret. */
  detail: string | null;
}

export interface NewAuditEvent {
  accountId: string;
  type: AuditEventType;
  ip: string | null;
  detail: string | null;
  at: number;
}

export interface AuditStore {
  recordAudit(event: NewAuditEvent): Promise<void>;
  /**
   * Up to `limit` events, newest first, skipping the `offset` newest: of one account, or of
   * every account when `accountId` is null (the operator's view).
   */
  auditEvents(accountId: string | null, offset: number, limit: number): Promise<AuditEvent[]>;
}

/** Events per page of `GET /account/audit` (and the operator's `GET /admin/audit`). */
export const AUDIT_PAGE_SIZE = 50;
/** Pages beyond this are refused, which bounds the query's OFFSET. */
export const AUDIT_MAX_PAGE = 1_000;

/** `?page=N`: 1 when absent, else a whole number from 1 to AUDIT_MAX_PAGE, or a 400. */
export function parseAuditPage(raw: unknown): number {
  if (raw === undefined || raw === "") return 1;
  const page = typeof raw === "string" && /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(page) || page < 1 || page > AUDIT_MAX_PAGE) {
    throw new AppError("invalid_request_error", `page must be a whole number from 1 to ${AUDIT_MAX_PAGE}`);
  }
  return page;
}

export interface AuditPage {
  page: number;
  hasMore: boolean;
  events: { id: string; at: string; type: AuditEventType; ip: string | null; detail: string | null }[];
}

/**
 * One page of the audit log, newest first, for one account or (`accountId` null) for all.
 * One row past the page is read to tell whether another follows, without counting.
 */
export async function auditPage(store: AuditStore, accountId: string | null, page: number): Promise<AuditPage> {
  const found = await store.auditEvents(accountId, (page - 1) * AUDIT_PAGE_SIZE, AUDIT_PAGE_SIZE + 1);
  return {
    page,
    hasMore: found.length > AUDIT_PAGE_SIZE,
    events: found.slice(0, AUDIT_PAGE_SIZE).map((e) => ({
      id: e.id, at: new Date(e.at).toISOString(), type: e.type, ip: e.ip, detail: e.detail,
    })),
  };
}
