// A provider's own API beside chat completions (OpenAI's and xAI's Responses API, DeepSeek's and
// Moonshot's Anthropic API), spoken through the chat pipeline: its answer and events wrapped as
// a chat completion and chunks, so that the pipeline reads the usage and settles it as chat's.
import type { ChatProvider, ProviderCall, StreamRead } from "./provider.ts";

/** The events of each read wrapped (null: left out); those before a bad or failed one still reach the relay, then the failure. */
async function* wrapReads(reads: AsyncIterable<StreamRead>, wrap: (data: string) => string | null): AsyncGenerator<StreamRead> {
  for await (const read of reads) {
    const wrapped: string[] = [];
    try {
      for (const data of read.events) {
        const chunk = wrap(data);
        if (chunk !== null) wrapped.push(chunk);
      }
    } catch (error) {
      yield { events: wrapped };
      throw error;
    }
    yield { events: wrapped };
  }
}

export interface OtherApi {
  endpoint: NonNullable<ProviderCall["endpoint"]>;
  /** The provider's answer as a chat completion (undefined: not an answer of this API, a 502). */
  wrapAnswer(answer: unknown): unknown;
  /** A wrapper for one stream's events, made per stream (it may remember earlier events). */
  eventWrapper(): (data: string) => string | null;
}

/** `inner`, calling the provider's `api` and answering in the chat pipeline's terms. */
export const speaking = (inner: ChatProvider, api: OtherApi): ChatProvider => ({
  complete: async (call) => api.wrapAnswer(await inner.complete({ ...call, endpoint: api.endpoint })),
  stream: async (call) => wrapReads(await inner.stream({ ...call, endpoint: api.endpoint }), api.eventWrapper()),
});
