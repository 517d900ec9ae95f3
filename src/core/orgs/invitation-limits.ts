// How many invitations may go out. An invitation is an e-mail the gateway sends, from its own
// address, to any address a verified account types, carrying an organization name that account
// chose: without a limit it is a relay for phishing under the gateway's name. The limits are far
// above what a team that is onboarding people sends, and are counted in the database (the
// rate-limit events), so they hold across instances.
import { AppError } from "../errors.ts";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Per organization and per inviter: at most this many invitations (first sends and resends) in a rolling hour and day. */
export const INVITATIONS_PER_HOUR = 25;
export const INVITATIONS_PER_DAY = 100;

/** One window the store counts: at most `limit` sends in `scope` within `windowMs` before now. */
export interface SendLimit {
  scope: string;
  limit: number;
  windowMs: number;
  /** Whose sends the window counts: the inviting person's, or the organization's. */
  per: "person" | "organization";
}

/** What the store answers when a window is full: the window, and when a send fits again. */
export interface SendLimited {
  limited: SendLimit;
  retryAfterSeconds: number;
}

/**
 * The windows an invitation by `inviterId` for `orgId` is counted in. The operator (no person,
 * the CLI) is not limited: it is the one the limits protect.
 */
export function invitationLimits(orgId: string, inviterId: string | null): SendLimit[] {
  if (inviterId === null) return [];
  const windows = (scope: string, per: SendLimit["per"]): SendLimit[] => [
    { scope, limit: INVITATIONS_PER_HOUR, windowMs: HOUR_MS, per },
    { scope, limit: INVITATIONS_PER_DAY, windowMs: DAY_MS, per },
  ];
  // Per person across its organizations (one can make many), and per organization across its admins.
  return [...windows(`invitations:person:${inviterId}`, "person"), ...windows(`invitations:org:${orgId}`, "organization")];
}

const inWords = (seconds: number): string => {
  const minutes = Math.ceil(seconds / 60);
  if (minutes <= 90) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = Math.ceil(minutes / 60);
  return `${hours} hour${hours === 1 ? "" : "s"}`;
};

/** The 429 for a full window, saying which limit and when to try again (also as `Retry-After`). */
export function invitationRefusal({ limited, retryAfterSeconds }: SendLimited, now: number): AppError {
  const window = limited.windowMs === HOUR_MS ? "hour" : "24 hours";
  const sent = limited.per === "person" ? "you have sent" : "this organization has sent";
  const at = new Date(now + retryAfterSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  return new AppError(
    "rate_limit_error",
    `Too many invitations: ${sent} ${limited.limit} in the last ${window}, the most allowed. Try again in ${inWords(retryAfterSeconds)} (at ${at}).`,
    { retryAfterSeconds },
  );
}
