import { AppError } from "../errors.ts";
import { parseUsd, type Nanos } from "../money.ts";

const ALERT_THRESHOLD_MAX_USD = 100;
const SPEND_LIMIT_MAX_USD = 10_000;
/** The API's spelling of "no spend safety limit". */
export const UNLIMITED = -1;

const invalid = (message: string) => new AppError("invalid_request_error", message);

/** A USD amount from a JSON number within [0, max], exact to the nano-USD; otherwise a 400 naming `field`. */
function boundedUsd(field: string, value: unknown, max: number, also = ""): Nanos {
  const expected = `${field} must be a number from 0 to ${max}${also}`;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > max) throw invalid(expected);
  const amount = parseUsd(value);
  if (amount === null) throw invalid(`${field} must have at most 9 decimal places`);
  return amount;
}

/**
 * `PATCH /settings/alert-threshold`: `threshold` is a USD balance from 0 to 100, or null to turn
 * the low-balance alert off. Returns the amount to store.
 */
export function parseAlertThreshold(body: Record<string, unknown>): Nanos | null {
  if (body.threshold === null) return null;
  return boundedUsd("threshold", body.threshold, ALERT_THRESHOLD_MAX_USD, ", or null to turn alerts off");
}

/**
 * `PATCH /settings/spend-safety-limit`: `limit` is -1 (unlimited, stored as null) or a USD
 * amount per rolling hour from 0 to 10000.
 */
export function parseSpendSafetyLimit(body: Record<string, unknown>): Nanos | null {
  if (body.limit === UNLIMITED) return null;
  return boundedUsd("limit", body.limit, SPEND_LIMIT_MAX_USD, `, or ${UNLIMITED} for no limit`);
}
