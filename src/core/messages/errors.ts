// Anthropic's error envelope (docs.claude.com/en/api/errors): `{type: "error", error: {type,
// message}, request_id}`, its types by HTTP status. The gateway's failures keep their status;
// only the names change.
import { ProviderOverloaded } from "../chat/failures.ts";
import type { AppError } from "../errors.ts";

const TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  502: "api_error",
  503: "overloaded_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/** Anthropic's error type for an HTTP status (a 4xx it does not name is an invalid request, as Anthropic says). */
export const anthropicErrorType = (status: number): string => TYPES[status] ?? (status < 500 ? "invalid_request_error" : "api_error");

/** The status the Messages door answers: the gateway's, but 529 where the provider said it is overloaded. */
export const anthropicStatus = (error: AppError): number => (error instanceof ProviderOverloaded ? 529 : error.status);

/** The error body Anthropic's SDKs read. */
export const anthropicErrorBody = (error: AppError, requestId: string) => ({
  type: "error",
  error: { type: anthropicErrorType(anthropicStatus(error)), message: error.message },
  request_id: requestId,
});
