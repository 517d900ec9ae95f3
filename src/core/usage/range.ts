import { AppError } from "../errors.ts";
import { DAY_MS } from "../time.ts";

const invalid = (message: string) => new AppError("invalid_request_error", message);
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)(Z|[+-]\d{2}:\d{2})?$/;

/**
 * One end of an export's range: a UTC day (`2026-03-14`: its start, or for `to` its end, so that
 * the day is included) or an ISO 8601 timestamp (UTC unless it names its offset). Epoch ms.
 */
function rangeEnd(flag: string, raw: string, end: boolean): number {
  if (DATE.test(raw) && realDay(raw)) return Date.parse(`${raw}T00:00:00Z`) + (end ? DAY_MS : 0);
  const stamp = TIMESTAMP.exec(raw);
  const ms = stamp && realDay(stamp[1] as string) ? Date.parse(`${stamp[1]}T${stamp[2]}${stamp[3] ?? "Z"}`) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw invalid(`${flag} must be a UTC date such as 2026-03-14 or a timestamp such as 2026-03-14T09:30:00Z (got "${raw}")`);
  }
  return ms;
}

/** Whether `YYYY-MM-DD` is a day of the calendar (Date.parse would roll 02-30 over to March). */
const realDay = (day: string): boolean => {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === day;
};

/**
 * `--from` / `--to` of `gateway usage export`: `from` inclusive, `to` exclusive as a timestamp
 * and inclusive as a day. Either may be left out.
 */
export function parseExportRange(from: string | undefined, to: string | undefined): { from?: number; until?: number } {
  const range: { from?: number; until?: number } = {};
  if (from !== undefined) range.from = rangeEnd("--from", from, false);
  if (to !== undefined) range.until = rangeEnd("--to", to, true);
  if (range.from !== undefined && range.until !== undefined && range.from >= range.until) throw invalid("--from must be before --to");
  return range;
}
