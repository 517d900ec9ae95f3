// Relaying a provider's stream to the client, and ending its reservation with the stream.
import type { Model } from "../catalog.ts";
import { AppError, isAppError } from "../errors.ts";
import type { BillingSession } from "./billing.ts";
import { ProviderOverloaded, ProviderTimeout, unreachable } from "./failures.ts";
import type { ChatLog, ReservationObserver } from "./ports.ts";
import type { StreamRead } from "./provider.ts";
import { leadingEvent, relayedAsIs, relayedReadAsIs } from "./relayed-as-is.ts";
import { finalChunk, readChunk, usageChunk } from "./response.ts";
import type { Nanos } from "../money.ts";
import type { Usage } from "./usage.ts";

/** Where the relay writes the client's events (`data:` payloads), and how it learns the client left. */
export interface StreamSink {
  emit(payload: string): void;
  /**
   * The same, for events already encoded (a read relayed as it came). The bytes are only lent:
   * they are written or copied before it returns.
   */
  emitBytes(payload: Uint8Array): void;
  /** Resolves once what was emitted so far may have been written to the client. */
  flush(): Promise<void>;
  /** The client has gone: nothing more reaches it. */
  readonly gone: boolean;
  /** Resolves once a front door's own work after the relay (keeping a response) is done and written. */
  finished?(): Promise<void>;
  /**
   * A front door that rewrites every chunk into its own API's events takes them parsed, a read's
   * at a time, rather than encoded to be decoded again: the relay then passes nothing on as it
   * came. The relay's own events (`[DONE]`, an error) still arrive through `emit`.
   */
  chunks?(chunks: readonly Record<string, unknown>[]): void;
}

export interface Relay {
  events: AsyncIterable<StreamRead>;
  model: Model;
  billing: BillingSession;
  log: ChatLog;
  observer: Pick<ReservationObserver, "providerFailed">;
  /**
   * When the client leaves, read the provider's stream to its end and charge the usage it
   * reports (STREAM_DISCONNECT_POLICY=charge); otherwise the client's leaving releases it.
   */
  chargeWhenGone: boolean;
  /**
   * The client asked for OpenAI's usage chunk (`stream_options.include_usage`): the usage goes in
   * a chunk of its own, with no choices, after the final one; otherwise it is merged into the
   * final chunk (the spec's events).
   */
  usageChunk: boolean;
}

export const CLIENT_LEFT = "client disconnected before the stream finished";

// An overloaded provider is told by its own status (Anthropic's 529), for the doors that name it: only
// a native Messages stream's provider says so mid-stream.
const errorPayload = (error: AppError) =>
  JSON.stringify({ error: { message: error.message, type: error.chatType, code: error instanceof ProviderOverloaded ? "529" : String(error.status) } });

/**
 * The held-back final chunk with its usage: merged in (the spec's events), or followed by
 * OpenAI's usage chunk when the client asked for that; a door that rewrites chunks gets it
 * merged. A provider that reported no usage is shown none (the reservation is charged all the same).
 */
function sendFinal(sink: StreamSink, final: Record<string, unknown>, usage: Usage | null, cost: Nanos, asChunk: boolean): void {
  if (sink.chunks) sink.chunks([usage ? finalChunk(final, usage, cost) : final]);
  else if (!usage) sink.emit(`data: ${JSON.stringify(final)}\n\n`);
  else if (asChunk) sink.emit(`data: ${JSON.stringify(final)}\n\ndata: ${JSON.stringify(usageChunk(final, usage, cost))}\n\n`);
  else sink.emit(`data: ${JSON.stringify(finalChunk(final, usage, cost))}\n\n`);
}

/**
 * What a stream has relayed so far, and the events of the read under way: each event's chunk
 * reshaped for the client, passed on, or held back (the final chunk, waiting for its usage).
 */
class Relaying {
  final: Record<string, unknown> | null = null;
  usage: Usage | null = null;
  /** `[DONE]` came. */
  finished = false;
  /** The first chunk has gone out: the rest may be passed on as they came. */
  firstSent = false;
  // What a read sends on, together: encoded events, or (to a door) parsed chunks.
  private relayed = "";
  private parsedChunks: Record<string, unknown>[] = [];
  // A door's own events are written from parsed chunks: nothing goes out as it came.
  readonly rewriting: Required<Pick<StreamSink, "chunks">> | null;

  constructor(private readonly sink: StreamSink, private readonly model: Model) {
    this.rewriting = sink.chunks ? (sink as Required<Pick<StreamSink, "chunks">>) : null;
  }

  /**
   * Takes one event's data. True when it was the first chunk, which has been sent on its own
   * (a provider's first read often holds several events): the caller flushes it before the rest.
   */
  take(data: string): boolean {
    if (data === "[DONE]") {
      this.finished = true;
      return false;
    }
    const asIs = this.firstSent && !this.rewriting ? relayedAsIs(data, this.model) : null;
    if (asIs !== null) {
      this.relayed += `data: ${asIs}\n\n`;
      return false;
    }
    const parsed = readChunk(JSON.parse(data) as Record<string, unknown>, this.model);
    this.usage = parsed.usage ?? this.usage;
    if (!parsed.chunk) return false; // the usage-only chunk
    if (parsed.final) {
      // With several choices each has a final chunk: only the last one waits for the usage.
      if (this.final) this.pass(this.final);
      this.final = parsed.chunk;
      return false;
    }
    this.pass(parsed.chunk);
    if (this.firstSent) return false;
    this.firstSent = true;
    this.sendRead();
    return true;
  }

  /** Sends what the read passed on so far. */
  sendRead(): void {
    if (this.relayed) this.sink.emit(this.relayed);
    this.relayed = "";
    if (this.rewriting && this.parsedChunks.length > 0) {
      this.rewriting.chunks(this.parsedChunks);
      this.parsedChunks = [];
    }
  }

  private pass(chunk: Record<string, unknown>): void {
    if (this.rewriting) this.parsedChunks.push(chunk);
    else this.relayed += `data: ${JSON.stringify(chunk)}\n\n`;
  }
}

/**
 * Passes on the events of a read of whole events' bytes from byte `from` for as long as
 * `relayedReadAsIs` can, without decoding them. Answers the byte where the events left to parse
 * begin, or -1 when none is.
 */
function passAsIs(bytes: Uint8Array, from: number, sink: StreamSink, model: Model): number {
  const asIs = relayedReadAsIs(bytes, model, from);
  if (asIs.events > 0) sink.emitBytes(asIs.bytes);
  return asIs.end === bytes.length ? -1 : asIs.end;
}

/**
 * The same for the stream's first read of bytes: its first event is parsed on its own and goes
 * out at once, and the events after it pass on as they came (a provider's first read often
 * holds several events; the benchmark's, all of them).
 */
async function passFirstRead(state: Relaying, bytes: Uint8Array, sink: StreamSink, model: Model): Promise<number> {
  const lead = leadingEvent(bytes);
  if (!lead) return 0;
  if (state.take(lead.data)) await sink.flush();
  if (state.firstSent && !state.finished) return passAsIs(bytes, lead.end, sink, model);
  return lead.end === bytes.length ? -1 : lead.end;
}

/**
 * Relays the provider's events to the client as they arrive. The provider's final chunk (the
 * last one with a finish_reason) is held back until its usage arrives, then sent with the
 * usage and its charge merged in (or followed by a usage chunk, as the client asked); the
 * usage is charged before `data: [DONE]`. A stream that fails before usage is
 * known ends with an error event and releases the whole reservation. A client that leaves is
 * released by `clientLeft`, not here.
 */
export async function relayStream(relay: Relay, sink: StreamSink): Promise<void> {
  const { model, billing, log } = relay;
  const state = new Relaying(sink, model);
  try {
    for await (const read of relay.events) {
      // The events of one read go to the client together (those before a bad one too): first
      // those passed on as they came, then the rest, parsed (only they are decoded).
      try {
        const bytes = state.rewriting ? undefined : read.bytes;
        const parseFrom = !bytes ? 0 : state.firstSent ? passAsIs(bytes, 0, sink, model) : await passFirstRead(state, bytes, sink, model);
        if (parseFrom < 0 || state.finished) continue;
        for (const data of read.bytes ? read.eventsFrom(parseFrom) : read.events) {
          if (state.take(data)) await sink.flush();
          if (state.finished) break;
        }
      } finally {
        state.sendRead();
      }
      if (state.finished) break;
    }
    state.finished ||= state.final !== null && state.usage !== null;
    if (!state.finished) throw new Error("the provider's stream ended before it finished");
  } catch (error) {
    if (sink.gone && !relay.chargeWhenGone) return; // the client's leaving has released the reservation
    const timedOut = error instanceof ProviderTimeout;
    log.warn("provider stream failed", { model: model.id, error: (error as Error).message });
    relay.observer.providerFailed(error);
    await billing.releaseQuietly(timedOut ? "provider stream timed out" : "provider stream failed");
    sink.emit(`data: ${errorPayload(isAppError(error) && error.kind === "provider_error" ? error : unreachable(false, 0))}\n\n`);
    return;
  }
  await finishStream(relay, sink, state.final, state.usage);
}

/** A stream the provider finished: its final chunk and usage sent, the usage charged, then `[DONE]`. */
async function finishStream(relay: Relay, sink: StreamSink, final: Record<string, unknown> | null, usage: Usage | null): Promise<void> {
  const { model, billing, log } = relay;
  if (sink.gone && usage === null) {
    // Nothing says what the provider did for a client that is gone: released, as by default.
    await billing.releaseQuietly(CLIENT_LEFT);
    return;
  }
  if (final) sendFinal(sink, final, usage, billing.quote(usage).cost, relay.usageChunk);
  try {
    await billing.settle(usage);
  } catch (error) {
    // Not the provider's failure: the charge could not be written, so its reservation stays
    // until the sweeper releases it, and the request is not charged.
    log.error("charging a finished stream failed", { model: model.id, error });
    sink.emit(`data: ${errorPayload(new AppError("unavailable", "The service is temporarily unavailable; this request will not be charged"))}\n\n`);
    return;
  }
  sink.emit("data: [DONE]\n\n");
}
