// The one adapter for all five providers: they all speak the OpenAI chat format, and what
// differs per family is data (src/core/quirks.ts). Mapping functions are pure; `send` does HTTP.
import type { Model } from "../../core/catalog.ts";
import { AppError } from "../../core/errors.ts";
import type { ProviderConfig } from "../../config.ts";
import { readCounting } from "../body.ts";

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** POSTs a chat completion to the provider's OpenAI-compatible API. Network failures throw. */
export function send(provider: ProviderConfig, body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: body.stream ? "text/event-stream" : "application/json" };
  if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
  return fetch(`${provider.baseUrl}/chat/completions`, { method: "POST", headers, body: JSON.stringify(body), signal });
}

/**
 * The most a provider's answer body (or one event of its stream) may hold. A 200,000-token
 * completion is about a megabyte of JSON; past this the provider is broken or hostile, and
 * buffering on would let it exhaust the gateway's memory.
 */
export const UPSTREAM_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

export const upstreamTooLarge = () =>
  new AppError("provider_error", `Upstream provider response exceeds ${UPSTREAM_BODY_LIMIT_BYTES / (1024 * 1024)} MB`);

/**
 * A provider's answer body as text, counted while it is read and given up (`upstreamTooLarge`)
 * past the limit. Network failures and timeouts throw as they are.
 */
export async function readUpstreamText(response: Response): Promise<string> {
  if (!response.body) return "";
  // A plain body of declared length is read in one piece (HTTP framing holds it to that
  // length). A compressed one is counted as it is inflated: its length says nothing of that.
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (!response.headers.has("content-encoding") && Number.isInteger(declared)) {
    if (declared > UPSTREAM_BODY_LIMIT_BYTES) throw upstreamTooLarge();
    return response.text();
  }
  const read = await readCounting(response.body, UPSTREAM_BODY_LIMIT_BYTES);
  if (read === null) throw upstreamTooLarge();
  return read.text;
}

/** A provider's answer body parsed as JSON, or undefined when it is not JSON; bounded as `readUpstreamText`. */
export async function readUpstreamJson(response: Response): Promise<unknown> {
  const text = await readUpstreamText(response);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The provider-reported usage, or null when it is missing or malformed. */
export function readUsage(value: unknown): Usage | null {
  if (typeof value !== "object" || value === null) return null;
  const { prompt_tokens, completion_tokens } = value as Record<string, unknown>;
  if (!isCount(prompt_tokens) || !isCount(completion_tokens)) return null;
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

const PROVIDER_MESSAGE_LIMIT = 500;

/** The provider's own error message, if its body has one, shortened; never headers or keys. */
function providerMessage(body: string): string | null {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    return typeof message === "string" && message.length > 0 ? message.slice(0, PROVIDER_MESSAGE_LIMIT) : null;
  } catch {
    return null;
  }
}

/**
 * What the client is told when the provider answers with an error status: a rejected request
 * (400, 422, e.g. context too long) is the client's to fix and keeps the provider's message;
 * anything else is the provider's failure.
 */
export function upstreamFailure(status: number, body: string): AppError {
  if (status === 400 || status === 422) {
    return new AppError("invalid_request_error", providerMessage(body) ?? "The provider rejected the request");
  }
  return new AppError("provider_error", `Upstream provider request failed with status ${status}`);
}

/** What the client is told when the provider could not be reached or stopped answering. */
export function unreachable(timedOut: boolean, timeoutMs: number): AppError {
  return new AppError(
    "provider_error",
    timedOut ? `Upstream provider timed out after ${Math.round(timeoutMs / 1000)} s` : "Upstream provider request failed",
  );
}

export interface Completion {
  response: Record<string, unknown>;
  usage: Usage | null;
}

/** The spec's non-streaming response from the provider's, with the resolved public model ID. */
export function toCompletion(upstream: unknown, model: Model, now: number): Completion | null {
  if (typeof upstream !== "object" || upstream === null) return null;
  const body = upstream as Record<string, unknown>;
  if (!Array.isArray(body.choices)) return null;
  const usage = readUsage(body.usage);
  return {
    usage,
    response: {
      id: typeof body.id === "string" ? body.id : `chatcmpl-${crypto.randomUUID()}`,
      object: "chat.completion",
      created: Number.isInteger(body.created) ? body.created : Math.floor(now / 1000),
      model: model.id,
      choices: body.choices,
      usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    },
  };
}
