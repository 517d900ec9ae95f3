import { Elysia } from "elysia";
import { AppError, isAppError, MESSAGES } from "../core/errors.ts";
import type { Logger } from "./log.ts";

const JSON_TYPE = { "content-type": "application/json" };

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { ...JSON_TYPE, ...headers } });

const retryHeaders = (error: AppError): Record<string, string> =>
  error.retryAfterSeconds === undefined ? {} : { "retry-after": String(error.retryAfterSeconds) };

/** Known failures pass through; anything else is logged and becomes a generic 500 with no detail. */
export function asAppError(error: unknown, log: Logger, requestId?: string): AppError {
  if (isAppError(error)) return error;
  log.error("unhandled error", { requestId, error });
  return new AppError("internal", MESSAGES.internal);
}

/**
 * Whether the OpenAI SDKs should retry (`x-should-retry`, which they obey before `Retry-After`):
 * a 402 or an hourly limit will not pass on retry, a busy account, provider or database may.
 */
function shouldRetry(error: AppError): boolean | undefined {
  if (error.shouldRetry !== undefined) return error.shouldRetry;
  if (error.kind === "provider_error" || error.kind === "unavailable") return true;
  if (error.kind === "insufficient_credits" || error.kind === "rate_limit_error") return false;
  return undefined;
}

/** The retry hints of an API error: `Retry-After` where waiting helps, `x-should-retry` where the kind says. */
export function errorHeaders(error: AppError): Record<string, string> {
  const retry = shouldRetry(error);
  return { ...retryHeaders(error), ...(retry === undefined ? {} : { "x-should-retry": String(retry) }) };
}

/** The chat surface's error body: `{ error: { message, type, code } }` with `code` the status (or the documented code), and `param` where one is named. */
export const chatError = (error: AppError, headers: Record<string, string> = {}): Response =>
  json(
    { error: { message: error.message, type: error.chatType, ...(error.param ? { param: error.param } : {}), code: error.code ?? String(error.status) } },
    error.status,
    { ...errorHeaders(error), ...headers },
  );

/** The account and public surfaces' error body: `{ error: string }`. */
export const plainError = (error: AppError, headers: Record<string, string> = {}): Response =>
  json({ error: error.message }, error.status, { ...retryHeaders(error), ...headers });

/** A handler answering 405 in a surface's error style, naming the one method the path takes. */
export const methodNotAllowed =
  (render: (error: AppError, headers: Record<string, string>) => Response, allowed: string) => () =>
    render(new AppError("method_not_allowed", `Method not allowed. Use ${allowed}.`), { allow: allowed });

/** 405 in the account surfaces' style for each path, naming the one method it takes (`{path: method}`). */
export function methodGuards(allowed: Record<string, string>) {
  const app = new Elysia();
  for (const [path, method] of Object.entries(allowed)) app.all(path, methodNotAllowed(plainError, method));
  return app;
}
