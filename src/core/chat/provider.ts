// The port through which a chat request reaches its model's provider. The OpenAI-compatible
// HTTP adapter (src/server/providers/openai-compatible.ts) implements it for all five
// providers; tests may script one.
import type { Model } from "../catalog.ts";

export interface ProviderCall {
  model: Model;
  /** The body to send, already mapped for the model's family (`upstreamBody`). */
  body: Record<string, unknown>;
  /** Aborted when the client leaves (or the request is otherwise given up). */
  signal: AbortSignal;
  /**
   * The controller behind `signal`, when the caller lets the adapter abort it too (its
   * timeout, an answer given up): the adapter then makes no controller of its own.
   */
  controller?: AbortController;
  /** The provider's API to call: chat completions unless said (the Responses API or an Anthropic API, where it has one). */
  endpoint?: "/chat/completions" | "/responses" | "/messages";
}

export interface ChatProvider {
  /**
   * Sends a non-streamed request and resolves with the provider's answer parsed as JSON
   * (undefined when it is not JSON). Throws an AppError when the provider cannot be reached,
   * times out, answers with an error status or sends too much.
   */
  complete(call: ProviderCall): Promise<unknown>;
  /**
   * Sends a streamed request and resolves once the provider has answered 200, with its events
   * per read. Failing before that, or while iterating (a cut, a timeout between events, an
   * event too large), throws an AppError.
   */
  stream(call: ProviderCall): Promise<AsyncIterable<StreamRead>>;
}

/** What one read of a provider's stream brought: its events, with their bytes when it was whole events and nothing else. */
export type StreamRead = EventsRead | WholeEventsRead;

interface EventsRead {
  /** The `data:` payloads of the events the read completed, in order. */
  readonly events: readonly string[];
  readonly bytes?: undefined;
}

/**
 * A read that was whole events and nothing else: a relay may pass its bytes on (rewritten)
 * without decoding them, and decodes only what it cannot pass on.
 */
export interface WholeEventsRead {
  readonly events: readonly string[];
  readonly bytes: Uint8Array;
  /** The payloads of the events from byte `at` (where one begins) to the read's end; those before it are not decoded. */
  eventsFrom(at: number): readonly string[];
}
