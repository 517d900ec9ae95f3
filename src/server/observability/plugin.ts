import { matchesDigest, sha256Hex } from "../../core/crypto.ts";
import { Elysia } from "elysia";
import type { Config } from "../../config.ts";
import { AppError, MESSAGES } from "../../core/errors.ts";
import { methodNotAllowed, plainError } from "../http.ts";
import type { Logger } from "../log.ts";
import type { Session } from "../session.ts";
import type { Metrics } from "./metrics.ts";
import { RequestRecord, UNMATCHED_ROUTE } from "./request-record.ts";
import { REQUEST_ID_HEADER, requestId } from "./request-id.ts";
import { bearerToken } from "../bearer.ts";

interface ObservabilityDeps {
  config: Pick<Config, "basePath" | "metricsToken">;
  log: Logger;
  metrics: Metrics;
}

// Keyed by the request object, so the chat route reaches its record without a framework type.
const records = new WeakMap<Request, RequestRecord>();

/** The record of a request served by an app with the observability plugin. */
export function requestRecord(request: Request): RequestRecord {
  const record = records.get(request);
  if (!record) throw new Error("no request record: the observability plugin must be mounted before the routes");
  return record;
}

/** The ID of a request served by an app with the observability plugin, if it has one. */
export const requestIdOf = (request: Request): string | undefined => records.get(request)?.id;

/**
 * What the after-response hook reads. `error` (set when the request threw) is not in Elysia's
 * types for this hook, nor `session`, which the session plugin resolves on signed-in requests.
 */
interface AnsweredContext {
  request: Request;
  route?: string;
  response?: unknown;
  set: { status?: unknown };
  error?: unknown;
  session?: Session;
}

function bearerMatches(authorization: string | null, expectedDigest: string): boolean {
  const token = bearerToken(authorization);
  return token !== undefined && matchesDigest(token, expectedDigest);
}

/**
 * The status the client was sent: that of the Response a route returned; for a thrown error,
 * the error's (Elysia keeps no response for those; the app's onError renders an AppError with
 * its own status, and a route that matched nothing has a NotFoundError); otherwise `set.status`.
 */
function statusOf(response: unknown, error: unknown, setStatus: unknown): number {
  if (response instanceof Response) return response.status;
  const errorStatus = (error as { status?: unknown } | undefined)?.status;
  if (typeof errorStatus === "number") return errorStatus;
  return typeof setStatus === "number" ? setStatus : 200;
}

/**
 * Every request gets an ID (kept from `x-request-id` when well-formed, sent back on every
 * response) and a record that becomes its log line and metrics; `GET /metrics` exposes them.
 * Mounted before every route so that its hooks cover them all, 404s included.
 */
export function observabilityPlugin({ config, log, metrics }: ObservabilityDeps) {
  const sinks = { metrics, log };
  const prefixLength = config.basePath.length;
  const tokenDigest = config.metricsToken === undefined ? null : sha256Hex(config.metricsToken);

  return new Elysia({ name: "observability" })
    .onRequest(({ request }) => {
      records.set(request, new RequestRecord(requestId(request.headers.get(REQUEST_ID_HEADER)), request.method, sinks));
    })
    // The ID goes onto the Response a route returns (routes return Responses), not into
    // `set.headers`: Elysia copies a returned Response whole to merge those, on every request.
    .mapResponse({ as: "global" }, ({ request, response }) => {
      const record = records.get(request);
      if (record && response instanceof Response) response.headers.set(REQUEST_ID_HEADER, record.id);
    })
    // A request that matched no route (404) gets its answer from the app's onError without
    // passing through mapResponse; Elysia merges `set.headers` into error answers.
    .onError({ as: "global" }, ({ request, set }) => {
      const record = records.get(request);
      if (record) set.headers[REQUEST_ID_HEADER] = record.id;
    })
    // Elysia runs this after the response is handed over, off the request's path. The context
    // is destructured in the parameter: Elysia reads hooks' source to decide what to prepare,
    // and a hook that used the context whole would make it parse every request's body.
    .onAfterResponse({ as: "global" }, ({ request, route, response, set, error, session }: AnsweredContext) => {
      const record = records.get(request);
      if (!record) return;
      record.accountId ??= session?.account?.id;
      record.responded(route === undefined ? UNMATCHED_ROUTE : route.slice(prefixLength), statusOf(response, error, set.status));
    })
    .get("/metrics", async ({ request }) => {
      if (tokenDigest !== null && !bearerMatches(request.headers.get("authorization"), tokenDigest)) {
        return plainError(new AppError("authentication_error", MESSAGES.unauthorized), { "www-authenticate": "Bearer" });
      }
      return new Response(await metrics.exposition(), { headers: { "content-type": metrics.contentType, "cache-control": "no-store" } });
    })
    .all("/metrics", methodNotAllowed(plainError, "GET"));
}
