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
 * The provider answered with an error status: a rejected request (400, 422, e.g. context too
 * long) is the client's to fix and keeps the provider's message; anything else is the
 * provider's failure. Every provider error a client is told passes here, whichever door it came
 * in by: `secrets` are the configured provider keys (`secretsInOrder`), never to be echoed.
 */
export function upstreamFailure(status: number, body: string, secrets: readonly string[]): AppError {
  if (status === 400 || status === 422) {
    return new AppError("invalid_request_error", providerMessage(body, secrets) ?? "The provider rejected the request");
  }
  if (status === 529) return new ProviderOverloaded();
  return new AppError("provider_error", `Upstream provider request failed with status ${status}`);
}

/**
 * The provider said it is overloaded (Anthropic's and its compatible APIs' 529). A provider
 * failure like any other (502 on the OpenAI doors); the Messages door passes the 529 on.
 */
export class ProviderOverloaded extends AppError {
  constructor() {
    super("provider_error", "Upstream provider is overloaded (status 529)");
  }
}

/** The provider took longer than the timeout: for the whole answer, or between two stream events. */
export class ProviderTimeout extends AppError {
  constructor(timeoutMs: number) {
    super("provider_error", `Upstream provider timed out after ${Math.round(timeoutMs / 1000)} s`);
  }
}

/** The provider could not be reached, stopped answering, or broke its answer off. */
export function unreachable(timedOut: boolean, timeoutMs: number): AppError {
  return timedOut ? new ProviderTimeout(timeoutMs) : new AppError("provider_error", "Upstream provider request failed");
}

/** The provider's answer is not a chat completion. */
export const malformedAnswer = () => new AppError("provider_error", "Upstream provider returned a malformed response");
