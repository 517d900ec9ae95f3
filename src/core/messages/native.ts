// Forwarding to providers with an Anthropic-compatible API of their own (DeepSeek:
// api-docs.deepseek.com/guides/anthropic_api; Moonshot's Kimi at api.moonshot.ai/anthropic).
// The body is the client's with the provider's model name and the ceiling; answers and events
// come back wrapped as chat completions and chunks, so that the chat pipeline settles them as
// it settles chat.
import type { Model } from "../catalog.ts";
import type { UpstreamRequest } from "../chat/families.ts";
import { speaking } from "../chat/other-api.ts";
import type { ChatProvider } from "../chat/provider.ts";
import { ProviderOverloaded } from "../chat/failures.ts";
import { AppError } from "../errors.ts";
import type { MessagesRequest } from "./request.ts";
import { chatUsageOf } from "./response.ts";

type Fields = Record<string, unknown>;
const objectOr = (value: unknown): Fields => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : {});

/** The native body: the client's request as it came, for the provider's model, within the ceiling. */
export function nativeBody(request: MessagesRequest, model: Model, ceiling: number): UpstreamRequest {
  // `models` is the gateway's (its fallbacks), never the provider's.
  const { models: _fallbacks, ...body } = request;
  return { body: { ...body, model: model.upstreamModel, max_tokens: ceiling }, dropped: [] };
}

/** A native Message wrapped as a chat completion: its usage in chat's names, the Message beside it. */
function wrapAnswer(answer: unknown): unknown {
  // Anything else is not a Message: the pipeline answers it as a malformed answer (502).
  const message = objectOr(answer);
  if (message.type !== "message") return undefined;
  return { id: message.id, choices: [], usage: chatUsageOf(message.usage), message };
}

/** A provider's `event: error` as the failure the client is told: an overloaded provider stays overloaded. */
const streamError = (error: Fields): AppError =>
  error.type === "overloaded_error" ? new ProviderOverloaded() : new AppError("provider_error", "Upstream provider request failed");

/**
 * A wrapper for one native stream's events, as chunks. `message_start` carries the input's
 * usage and `message_delta` the output's (cumulative, and on some providers the input's again);
 * the delta is held until `message_stop`, then sent as the final chunk with the whole usage, so
 * that the relay writes it last.
 */
function eventWrapper(): (data: string) => string | null {
  let usage: Fields = {};
  let delta: Fields | null = null;
  return (data) => {
    const event = JSON.parse(data) as Fields;
    if (event.type === "error") throw streamError(objectOr(event.error));
    if (event.type === "message_start") usage = { ...objectOr(objectOr(event.message).usage) };
    if (event.type === "message_delta") {
      usage = { ...usage, ...objectOr(event.usage) };
      delta = event;
      return null;
    }
    if (event.type === "message_stop" && delta) {
      return JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: chatUsageOf(usage), event: { ...delta, usage } });
    }
    return JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: null }], event });
  };
}

/** `inner`, calling the provider's Anthropic API and answering in the chat pipeline's terms. */
export const nativeProvider = (inner: ChatProvider): ChatProvider => speaking(inner, { endpoint: "/messages", wrapAnswer, eventWrapper });
