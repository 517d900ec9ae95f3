import type { Config } from "../config.ts";
import { SESSION_COOKIE } from "../core/accounts/session.ts";
import { AppError, MESSAGES } from "../core/errors.ts";

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The origin (scheme, host and port) of a URL, or null for "null", garbage and opaque origins. */
function originOf(text: string): string | null {
  try {
    const { origin } = new URL(text);
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

/**
 * Whether a browser's Origin (or Referer) is the service's own: PUBLIC_URL's origin, or the
 * origin the request itself was sent to (its scheme, as this server received it, and its Host),
 * for a server reached by another name than PUBLIC_URL. Schemes are compared too: a page on
 * `https://host` is not the same origin as `http://host`.
 */
function isOwnOrigin(sent: string, request: Request, config: Pick<Config, "publicUrl">): boolean {
  const origin = originOf(sent);
  return origin !== null && (origin === new URL(config.publicUrl).origin || origin === new URL(request.url).origin);
}

/** Whether the request carries a session cookie, which a cross-site request would ride on. */
const carriesSession = (request: Request): boolean =>
  (request.headers.get("cookie") ?? "").split(";").some((part) => part.trim().startsWith(`${SESSION_COOKIE}=`));

/** A body with a type other than JSON, or a body with no type at all. */
function hasNonJsonBody(request: Request): boolean {
  const type = request.headers.get("content-type");
  if (type !== null) return type.split(";")[0]!.trim().toLowerCase() !== "application/json";
  const length = request.headers.get("content-length");
  return request.headers.has("transfer-encoding") || (length !== null && length.trim() !== "0");
}

/**
 * Refuses a write that another site could have made a browser send with the user's cookie
 * (CSRF), for the cookie-authenticated endpoints and sign-up, sign-in and sign-out:
 * - its Origin must be the service's own (`isOwnOrigin`); `Origin: null` is foreign;
 * - without Origin, a Referer must be the service's own too (older browsers and some
 *   privacy settings send only a Referer, and a foreign one is a cross-site request);
 * - a body sent with the session cookie must be `application/json` (a body-less write needs no
 *   type). A plain HTML form or a no-cors fetch can only send `text/plain`, form encodings or no
 *   type, never JSON, without a CORS preflight this server never grants. Without the cookie
 *   (sign-up, sign-in from a script) there is no session to ride, and any type is read as JSON.
 * Requests with neither Origin nor Referer come from non-browser clients, which cannot be made
 * to carry a victim's cookie, and pass the origin checks, not the type check.
 */
export function refuseCrossSiteWrite(request: Request, config: Pick<Config, "publicUrl">): void {
  if (!WRITE_METHODS.has(request.method)) return;
  const origin = request.headers.get("origin");
  const referer = request.headers.get("referer");
  const sentFrom = origin ?? referer;
  if (sentFrom !== null && !isOwnOrigin(sentFrom, request, config)) throw new AppError("permission_error", MESSAGES.forbidden);
  if (carriesSession(request) && hasNonJsonBody(request)) throw new AppError("unsupported_media_type", MESSAGES.jsonContentTypeRequired);
}
