// The one adapter for all five providers, the chat path's `ChatProvider`: they all speak the
// OpenAI chat format, and what differs per family is data (src/core/chat/families.ts) and pure
// mapping (src/core/chat/). This file does the HTTP: send, time out, read within bounds.
import { PROVIDERS, type Provider } from "../../core/catalog.ts";
import { unreachable } from "../../core/chat/failures.ts";
import type { ChatProvider, ProviderCall, StreamRead } from "../../core/chat/provider.ts";
import { AppError, isAppError } from "../../core/errors.ts";
import { secretsInOrder } from "../../core/redaction.ts";
import type { ProviderConfig } from "../../config.ts";
import { readCounting } from "../body.ts";
import { answerWithRetries, type AttemptExchange, type AttemptOutcome, type Attempts } from "./attempts.ts";
import { KeyPool } from "./key-pool.ts";
import { sseReads } from "./sse.ts";

/** POSTs a chat completion to `{baseUrl}/chat/completions` (or `endpoint`) with `apiKey`, if any. Network failures throw. */
export function send(baseUrl: string, apiKey: string | undefined, body: Record<string, unknown>, signal: AbortSignal, endpoint: Endpoint = "/chat/completions"): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: body.stream ? "text/event-stream" : "application/json" };
  if (endpoint === "/messages") {
    // Anthropic's API: the key in `x-api-key`, the version it answers in, the path under `/v1`.
    if (apiKey) headers["x-api-key"] = apiKey;
    headers["anthropic-version"] = ANTHROPIC_VERSION;
    return fetch(`${baseUrl}/v1/messages`, { method: "POST", headers, body: JSON.stringify(body), signal });
  }
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return fetch(`${baseUrl}${endpoint}`, { method: "POST", headers, body: JSON.stringify(body), signal });
}

type Endpoint = NonNullable<ProviderCall["endpoint"]>;

/** The Messages API version the gateway speaks to providers (docs.claude.com/en/api/versioning). */
const ANTHROPIC_VERSION = "2023-06-01";

/** Where `endpoint` is served: Anthropic's API at its own base URL, the others under the OpenAI-compatible one. */
const baseUrlOf = (config: ProviderConfig, endpoint: ProviderCall["endpoint"]): string =>
  endpoint === "/messages" ? (config.anthropicBaseUrl ?? config.baseUrl) : config.baseUrl;

/**
 * The most a provider's answer body (or one event of its stream) may hold. A 200,000-token
 * completion is about a megabyte of JSON; past this the provider is broken or hostile, and
 * buffering on would let it exhaust the gateway's memory.
 */
const UPSTREAM_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

const upstreamTooLarge = () =>
  new AppError("provider_error", `Upstream provider response exceeds ${UPSTREAM_BODY_LIMIT_BYTES / (1024 * 1024)} MB`);

/**
 * A provider's answer body as text, counted while it is read and given up (`upstreamTooLarge`)
 * past the limit. Network failures and timeouts throw as they are.
 */
async function readUpstreamText(response: Response): Promise<string> {
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

const abort = (controller: AbortController) => controller.abort();

const isTimeout = (signal: AbortSignal) => (signal.reason as Error | undefined)?.name === "TimeoutError";

/**
 * An exchange with the provider under the timeout: until the answer starts it covers the whole
 * exchange (and, for a non-streamed answer, the reading of its body); a stream's timeout then
 * moves to the gaps between its reads. The client's signal aborts it too.
 */
class Exchange implements AttemptExchange {
  private readonly controller: AbortController;
  private timer: Timer;
  /** Set while this exchange follows the client's signal with a controller of its own. */
  private readonly client: AbortSignal | null;

  private readonly onClientGone = () => this.controller.abort();
  /** What is sent, until the provider has answered (`answered`). */
  private call: Pick<ProviderCall, "body" | "endpoint"> | null;

  /**
   * With the call's own controller (`ProviderCall.controller`) the exchange aborts that one:
   * the client's leaving already does, and a second controller with a listener on the first
   * cost ~9 µs of a request.
   */
  constructor(
    call: ProviderCall,
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.call = call;
    this.controller = call.controller ?? new AbortController();
    this.client = call.controller ? null : call.signal;
    this.timer = setTimeout(() => this.controller.abort(new DOMException("timed out", "TimeoutError")), timeoutMs);
    if (this.client?.aborted) this.onClientGone();
    else this.client?.addEventListener("abort", this.onClientGone, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** One attempt, with `secret`. */
  send(secret: string | undefined): Promise<Response> {
    if (!this.call) throw new Error("the provider has already answered this exchange");
    return send(this.baseUrl, secret, this.call.body, this.controller.signal, this.call.endpoint);
  }

  /**
   * The provider has answered: the call (the prompt as sent among it) is let go, since a
   * stream's exchange lives as long as the stream.
   */
  answered(): void {
    this.call = null;
  }

  /** Starts the timeout over (a stream's next read arrived). */
  refresh(): void {
    this.timer.refresh();
  }

  /** What the client is told for `error`: a failure it caused (too large) as it is, else unreachable or timed out. */
  failure(error: unknown): AppError {
    return isAppError(error) ? error : unreachable(isTimeout(this.controller.signal), this.timeoutMs);
  }

  /**
   * Ends the exchange: the timer stops and the client's leaving no longer matters. An answer
   * read to its end leaves nothing to let go; one given up (`read` false) is aborted, so that
   * its connection is closed. (Aborting every exchange cost ~4% of a request's CPU.) The abort
   * waits for the end of this turn of the event loop: a stream given up once its usage is read
   * is charged and closed in this turn, and its ~12 µs need not come first.
   */
  end(read: boolean): void {
    clearTimeout(this.timer);
    this.client?.removeEventListener("abort", this.onClientGone);
    if (!read) setImmediate(abort, this.controller);
  }
}

async function* relayedEvents(body: ReadableStream<Uint8Array>, exchange: Exchange): AsyncGenerator<StreamRead> {
  let read = false;
  try {
    for await (const events of sseReads(body, UPSTREAM_BODY_LIMIT_BYTES)) {
      exchange.refresh();
      yield events;
    }
    read = true;
  } catch (error) {
    throw exchange.failure(error);
  } finally {
    exchange.end(read);
  }
}

interface AdapterOptions {
  timeoutMs: number;
  now: () => number;
  /** Told how each attempt ended, by provider and key index (never the key). */
  observe(provider: Provider, keyIndex: number | null, outcome: AttemptOutcome): void;
}

/** The chat path's provider port over each provider's OpenAI-compatible HTTP API, rotating over its keys. */
export function openAiCompatible(providers: Record<Provider, ProviderConfig>, options: AdapterOptions): ChatProvider {
  const { timeoutMs, now } = options;
  // Every provider's keys, not only the answering one's: no provider's words may carry any.
  const secrets = secretsInOrder(PROVIDERS.flatMap((p) => providers[p].apiKeys));
  const attempts = Object.fromEntries(PROVIDERS.map((provider): [Provider, Attempts] => [provider, {
    pool: new KeyPool(providers[provider].apiKeys, now),
    readText: readUpstreamText,
    secrets,
    observe: (keyIndex, outcome) => options.observe(provider, keyIndex, outcome),
  }])) as Record<Provider, Attempts>;

  /** An exchange for `call` with its model's provider, under the timeout. */
  const exchangeFor = (call: ProviderCall) => new Exchange(call, baseUrlOf(providers[call.model.provider], call.endpoint), timeoutMs);
  /** Sends the exchange's call and returns its 200 answer, or throws what the client is told. */
  const answer = (call: ProviderCall, exchange: Exchange): Promise<Response> => answerWithRetries(attempts[call.model.provider], exchange, now);

  return {
    async complete(call) {
      const exchange = exchangeFor(call);
      let read = false;
      try {
        const answered = await readUpstreamJson(await answer(call, exchange));
        read = true;
        return answered;
      } catch (error) {
        // Too large is said as such; a body cut short or too slow is a failed request.
        throw exchange.failure(error);
      } finally {
        exchange.end(read);
      }
    },
    async stream(call) {
      const exchange = exchangeFor(call);
      try {
        const response = await answer(call, exchange);
        exchange.answered();
        exchange.refresh();
        return relayedEvents(response.body as ReadableStream<Uint8Array>, exchange);
      } catch (error) {
        exchange.end(false);
        throw exchange.failure(error);
      }
    },
  };
}
