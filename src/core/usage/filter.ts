import { DAY_MS } from "../time.ts";
import { AppError } from "../errors.ts";
import { manages, type OrgAccess } from "../orgs/roles.ts";

/** What the dashboard's usage table may be narrowed to; every field is optional. */
export interface UsageFilter {
  keyId?: string;
  /** An organization's member: the usage of the keys it owns. */
  memberId?: string;
  model?: string;
  /** `error` takes refusals too (the CSV calls them `error`); `refused` only the requests a key's allowlists refused. */
  status?: "success" | "error" | "refused";
  /** Epoch ms, inclusive: the start of the `from` UTC day. */
  from?: number;
  /** Epoch ms, exclusive: the end of the `to` UTC day. */
  until?: number;
}

const invalid = (message: string) => new AppError("invalid_request_error", message);
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A UTC day `YYYY-MM-DD` as the epoch ms of its start; impossible dates (02-30) are refused. */
function dayStart(field: string, raw: string): number {
  const match = DATE.exec(raw);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw) throw invalid(`${field} must be a date such as 2026-03-14`);
  return ms;
}

const present = (raw: string | undefined): raw is string => raw !== undefined && raw !== "";
// No key id or model ID holds one, and Postgres cannot even compare a NUL.
const CONTROL = /\p{Cc}/u;

/**
 * The filters of `GET /account/usage`: `key` (a key's id), `member` (an organization member's
 * user id), `model` (a catalog ID), `status`
 * (`success`, `error` or `refused`), and `from` / `to`, UTC days, both included. Empty means no filter.
 */
export function parseUsageFilter(query: Record<string, string | undefined>): UsageFilter {
  const filter: UsageFilter = {};
  if (present(query.key)) {
    if (query.key.length > 64 || CONTROL.test(query.key)) throw invalid("key must be a key's id");
    filter.keyId = query.key;
  }
  if (present(query.member)) {
    if (query.member.length > 64 || CONTROL.test(query.member)) throw invalid("member must be a member's user id");
    filter.memberId = query.member;
  }
  if (present(query.model)) {
    if (query.model.length > 128) throw invalid("model must be at most 128 characters");
    if (CONTROL.test(query.model)) throw invalid("model must not contain control characters");
    filter.model = query.model;
  }
  if (present(query.status)) {
    if (query.status !== "success" && query.status !== "error" && query.status !== "refused") {
      throw invalid("status must be success, error or refused");
    }
    filter.status = query.status;
  }
  if (present(query.from)) filter.from = dayStart("from", query.from);
  if (present(query.to)) filter.until = dayStart("to", query.to) + DAY_MS;
  if (filter.from !== undefined && filter.until !== undefined && filter.from >= filter.until) {
    throw invalid("from must not be after to");
  }
  return filter;
}

/** An organization's member reads the usage of its own keys only; owners and admins anyone's (`?member=`). */
export const ownUsage = (caller: { org?: OrgAccess | null }, filter: UsageFilter): UsageFilter =>
  caller.org && !manages(caller.org.role) ? { ...filter, memberId: caller.org.personId ?? "" } : filter;
