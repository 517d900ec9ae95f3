import type { Model } from "../../core/catalog.ts";
import { AppError } from "../../core/errors.ts";
import type { Logger } from "../log.ts";
import type { RequestRecord } from "../observability/request-record.ts";
import { readUsage, unreachable, UPSTREAM_BODY_LIMIT_BYTES, type Usage } from "../providers/openai-compatible.ts";
import { sseData } from "../providers/sse.ts";
import type { BillingSession } from "./billing-session.ts";

const encoder = new TextEncoder();
const eventText = (payload: string) => `data: ${payload}\n\n`;
const event = (payload: string) => encoder.encode(eventText(payload));
const DONE = event("[DONE]");

export interface RelayOptions {
  upstream: Response;
  /** Aborts the upstream request: on client disconnect and when the provider falls silent. */
  abort: AbortController;
  idleTimeoutMs: number;
  model: Model;
  billing: BillingSession;
  log: Logger;
  /** Told when the provider cuts the stream short. */
  record: Pick<RequestRecord, "providerFailed">;
}

const errorEvent = (error: AppError) =>
  event(JSON.stringify({ error: { message: error.message, type: error.chatType, code: String(error.status) } }));

/**
 * Relays the provider's SSE stream to the client chunk by chunk as it arrives. The provider's
 * final chunk (the one with finish_reason) is held back until its usage arrives, then sent
 * with the usage merged in; the usage is charged before `data: [DONE]`. A stream that fails
 * before usage is known ends with an error chunk and releases the whole reservation, as does
 * a client that disconnects.
 */
export function relayStream(options: RelayOptions): ReadableStream<Uint8Array> {
  const { upstream, abort, idleTimeoutMs, model, billing, log, record } = options;
  let idle: Timer | undefined;
  let timedOut = false;
  let clientGone = false;

  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const emit = (bytes: Uint8Array) => {
        if (clientGone) return;
        try {
          controller.enqueue(bytes);
        } catch {
          clientGone = true; // the client went away between two chunks
        }
      };
      idle = setTimeout(() => {
        timedOut = true;
        abort.abort();
      }, idleTimeoutMs);

      let final: Record<string, unknown> | null = null;
      let usage: Usage | null = null;
      let finished = false;
      let firstSent = false;
      try {
        for await (const read of sseData(upstream.body as ReadableStream<Uint8Array>, UPSTREAM_BODY_LIMIT_BYTES)) {
          idle.refresh();
          // The events of one read go to the client in one piece (those before a bad one too).
          let relayed = "";
          try {
            for (const data of read) {
              if (data === "[DONE]") {
                finished = true;
                break;
              }
              const chunk = JSON.parse(data) as Record<string, unknown>;
              usage = readUsage(chunk.usage) ?? usage;
              const choices = Array.isArray(chunk.choices) ? (chunk.choices as { finish_reason?: unknown }[]) : [];
              if (choices.length === 0) continue; // the usage-only chunk
              // Reshaped in place: the parsed chunk is this loop's own, and its keys keep their order.
              chunk.object = "chat.completion.chunk";
              chunk.model = model.id;
              if ("usage" in chunk) delete chunk.usage;
              if (choices.some((c) => c.finish_reason != null)) final = chunk;
              else if (firstSent) relayed += eventText(JSON.stringify(chunk));
              else {
                // Bun writes what was enqueued when the event loop turns. A provider's first read
                // often holds several events; the first one goes out before the rest are reshaped.
                firstSent = true;
                emit(event(JSON.stringify(chunk)));
                await new Promise((resolve) => setImmediate(resolve));
              }
            }
          } finally {
            if (relayed) emit(encoder.encode(relayed));
          }
          if (finished) break;
        }
        finished ||= final !== null && usage !== null;
        if (!finished) throw new Error("the provider's stream ended before it finished");
        if (final) emit(event(JSON.stringify(usage ? { ...final, usage } : final)));
        try {
          await billing.settle(usage);
        } catch (error) {
          // Not the provider's failure: the charge could not be written, so its reservation
          // stays until the sweeper releases it, and the request is not charged.
          log.error("charging a finished stream failed", { model: model.id, error });
          emit(errorEvent(new AppError("unavailable", "The service is temporarily unavailable; this request will not be charged")));
          return;
        }
        emit(DONE);
      } catch (error) {
        if (clientGone) return; // cancel() has released the reservation
        log.warn("provider stream failed", { model: model.id, error: (error as Error).message });
        record.providerFailed();
        await billing.release(timedOut ? "provider stream timed out" : "provider stream failed").catch((e) =>
          log.error("releasing a reservation failed", { error: e }),
        );
        emit(errorEvent(unreachable(timedOut, idleTimeoutMs)));
      } finally {
        clearTimeout(idle);
        if (!clientGone) controller.close();
        abort.abort(); // lets go of the upstream connection if it is still open
      }
    },
    async cancel() {
      clientGone = true;
      clearTimeout(idle);
      abort.abort();
      await billing.release("client disconnected before the stream finished").catch((e) =>
        log.error("releasing a reservation failed", { error: e }),
      );
    },
  });
}
