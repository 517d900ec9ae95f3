// What the client is told when the provider fails: the provider's words where they are the
// client's to act on, never its headers or keys.
import { AppError } from "../errors.ts";
import { redactProviderText } from "../redaction.ts";

const PROVIDER_MESSAGE_LIMIT = 500;

/**
 * The provider's own error message, if its body has one, with secrets taken out and then
 * shortened (in that order, so that no key is cut in two and half of it left).
 */
function providerMessage(body: string, secrets: readonly string[]): string | null {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message !== "string" || message.length === 0) return null;
    return redactProviderText(message, secrets).slice(0, PROVIDER_MESSAGE_LIMIT);
  } catch {
    return null;
  }
}

/**
 * Why a provider failed a request before answering, where another model may well answer it
 * (DESIGN, "Fallbacks"): the next candidate is tried only for these.
 */
export type FallbackReason = "unreachable" | "timeout" | "rate_limited" | "server_error" | "context_length";

/**
 * A provider's failure, with the reason another candidate may be tried (null: the client's to
 * fix, or no other would do better), and for the operator's log what the provider answered:
 * its status and its own message (secrets taken out), which the client may not be told.
 */
export class ProviderFailure extends AppError {
  constructor(
    kind: "provider_error" | "invalid_request_error",
    message: string,
    readonly fallback: FallbackReason | null,
    readonly upstream: { status: number; message: string | null } | null = null,
  ) {
    super(kind, message);
  }
}

/** What the failure lets another candidate be tried for, if anything. */
export const fallbackReasonOf = (error: unknown): FallbackReason | null => (error instanceof ProviderFailure ? error.fallback : null);

// How providers word a prompt too long for the model: OpenAI's and xAI's `context_length_exceeded`,
// DeepSeek's "maximum context length", Moonshot's "exceeded model token limit", Anthropic's
// "prompt is too long". Another model with a larger window may take it.
const CONTEXT_LENGTH = /context[_ ]length|context window|maximum context|token limit|prompt is too long|too many tokens/i;

/**
 * The provider answered with an error status: a rejected request (400, 422, e.g. context too
 * long) is the client's to fix and keeps the provider's message; anything else is the
 * provider's failure. Every provider error a client is told passes here, whichever door it came
 * in by: `secrets` are the configured provider keys (`secretsInOrder`), never to be echoed.
 */
export function upstreamFailure(status: number, body: string, secrets: readonly string[]): AppError {
  const upstream = { status, message: providerMessage(body, secrets) };
  if (status === 400 || status === 422) {
    const tooLong = status === 400 && CONTEXT_LENGTH.test(body);
    return new ProviderFailure("invalid_request_error", upstream.message ?? "The provider rejected the request", tooLong ? "context_length" : null, upstream);
  }
  if (status === 529) return new ProviderOverloaded(upstream.message);
  // 401 and 403 after every key was tried: the operator's keys, which no other model of this provider would fix either way.
  const reason = status === 429 ? "rate_limited" : status >= 500 ? "server_error" : null;
  return new ProviderFailure("provider_error", `Upstream provider request failed with status ${status}`, reason, upstream);
}

/**
 * The provider said it is overloaded (Anthropic's and its compatible APIs' 529). A provider
 * failure like any other (502 on the OpenAI doors); the Messages door passes the 529 on.
 */
export class ProviderOverloaded extends ProviderFailure {
  constructor(providerSays: string | null = null) {
    super("provider_error", "Upstream provider is overloaded (status 529)", "server_error", { status: 529, message: providerSays });
  }
}

/** The provider took longer than the timeout: for the whole answer, or between two stream events. */
export class ProviderTimeout extends ProviderFailure {
  constructor(timeoutMs: number) {
    super("provider_error", `Upstream provider timed out after ${Math.round(timeoutMs / 1000)} s`, "timeout");
  }
}

/** The provider could not be reached, stopped answering, or broke its answer off. */
export function unreachable(timedOut: boolean, timeoutMs: number): AppError {
  return timedOut ? new ProviderTimeout(timeoutMs) : new ProviderFailure("provider_error", "Upstream provider request failed", "unreachable");
}

/** The provider's answer is not a chat completion. */
export const malformedAnswer = () => new AppError("provider_error", "Upstream provider returned a malformed response");
