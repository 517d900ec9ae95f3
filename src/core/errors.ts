/** Every failure the gateway reports, by kind. The HTTP status and chat error type follow from the kind alone. */
const KINDS = {
  invalid_request_error: { status: 400, type: "invalid_request_error" },
  payload_too_large: { status: 413, type: "invalid_request_error" },
  method_not_allowed: { status: 405, type: "invalid_request_error" },
  unsupported_media_type: { status: 415, type: "invalid_request_error" },
  // A protocol the path does not speak (the Responses API's WebSocket mode): clients fall back to HTTP.
  upgrade_required: { status: 426, type: "invalid_request_error" },
  authentication_error: { status: 401, type: "authentication_error" },
  insufficient_credits: { status: 402, type: "insufficient_credits" },
  permission_error: { status: 403, type: "permission_error" },
  not_found: { status: 404, type: "not_found_error" },
  // A path or resource under /v1 that does not exist, in OpenAI's words.
  unknown_resource: { status: 404, type: "invalid_request_error" },
  conflict: { status: 409, type: "conflict_error" },
  rate_limit_error: { status: 429, type: "rate_limit_error" },
  internal: { status: 500, type: "api_error" },
  provider_error: { status: 502, type: "provider_error" },
  unavailable: { status: 503, type: "service_unavailable_error" },
  timeout: { status: 504, type: "timeout_error" },
} as const satisfies Record<string, { status: number; type: string }>;

type ErrorKind = keyof typeof KINDS;

export class AppError extends Error {
  readonly kind: ErrorKind;
  /** Seconds a client should wait before retrying; sent as `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;
  /** Whether retrying the same request can succeed (`x-should-retry` on chat); undefined: as the kind says. */
  readonly shouldRetry: boolean | undefined;
  /** The request field at fault, where an API names it (OpenAI's `param`). */
  readonly param: string | undefined;
  /** A machine-readable code where an API documents one (OpenAI's `previous_response_not_found`); else the status. */
  readonly code: string | undefined;

  constructor(kind: ErrorKind, message: string, options: { retryAfterSeconds?: number; shouldRetry?: boolean; param?: string; code?: string } = {}) {
    super(message);
    this.name = "AppError";
    this.kind = kind;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.shouldRetry = options.shouldRetry;
    this.param = options.param;
    this.code = options.code;
  }

  get status(): number {
    return KINDS[this.kind].status;
  }

  /** The `type` of the chat error body, `{ error: { message, type, code } }`. */
  get chatType(): string {
    return KINDS[this.kind].type;
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

/** Texts the spec fixes word for word. */
export const MESSAGES = {
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  jsonContentTypeRequired: "Content-Type must be application/json",
  userNotFound: "User not found",
  accountNotFound: "Account not found",
  keyNotFound: "Key not found",
  keyNotFoundOrRevoked: "Key not found or already revoked",
  keyForbidden: "Forbidden or key not found",
  keyRateLimited: "rate_limit_exceeded",
  invalidPack: "Invalid pack ID",
  capacityExhausted: "capacity_exhausted",
  packNotConfigured: "This pack is not yet configured. Please contact support.",
  checkoutFailed: "Failed to create checkout session. Please try again.",
  exportFailed: "Failed to export usage",
  emailTaken: "Email already registered",
  invalidCredentials: "Invalid email or password",
  signInThrottled: "Too many sign-in attempts. Please try again later.",
  keyValidation: "validation error",
  keyExpiredNoRotate: "Key has expired and cannot be rotated",
  estimatorMessagesRequired: "Invalid request: messages array required",
  estimatorTooLong: "Maximum conversation length reached",
  estimatorInvalidItem: "Invalid message item",
  estimatorInvalidRole: "Invalid message role",
  estimatorInvalidContent: "Invalid message content",
  estimatorRateLimited: "Too many requests. Please try again later.",
  estimatorTimedOut: "Estimator timed out",
  internal: "Internal server error",
  tooManyRequests: "Too many requests. Please try again later.",
  totpRequired: "Two-factor code required",
  totpInvalid: "Invalid two-factor code",
  invalidLink: "This link is invalid or has expired",
  wrongPassword: "Current password is incorrect",
} as const;
