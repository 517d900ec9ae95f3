import type { Model } from "../../core/catalog.ts";
import { ProviderFailure, type FallbackReason } from "../../core/chat/failures.ts";
import type { AppError } from "../../core/errors.ts";
import type { ChatObserver } from "../../core/chat/pipeline.ts";
import type { Charge } from "../../core/chat/ports.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "./metrics.ts";

/** The route label of a request that matched no route (a 404), so that raw paths never become labels. */
export const UNMATCHED_ROUTE = "(unmatched)";

const secondsSince = (startedAt: number) => (performance.now() - startedAt) / 1000;

// What the client sent as `model` is its own text: the line keeps enough of it to be recognised.
const ASKED_MODEL_LIMIT = 128;

/** What a provider answered when it failed, for the operator: its status and its own words, or what broke. */
function upstreamFailureOf(error: unknown): { status?: number; message?: string } {
  if (error instanceof ProviderFailure) return error.upstream ? { status: error.upstream.status, message: error.upstream.message ?? undefined } : { message: error.message };
  return error instanceof Error ? { message: error.message } : {};
}
const milliseconds = (seconds: number) => Math.round(seconds * 10_000) / 10;

/**
 * The facts of one request, gathered while it is served, that become its one log line and its
 * metrics. The line is written once both the response has been handed over and, for a chat
 * request holding a reservation, the provider's answer has ended: a stream's line comes when
 * the stream ends, not when its headers are sent. It never holds a key, a cookie, a password
 * or a prompt: only IDs, the key's public prefix, the route template, numbers, the model the
 * client asked for and, for a failed request, what it was told and what the provider answered
 * (provider keys already taken out of that).
 */
export class RequestRecord implements ChatObserver {
  private readonly startedAt = performance.now();
  private route = UNMATCHED_ROUTE;
  private status = 0;
  accountId: string | undefined;
  keyPrefix: string | undefined;
  /** The catalog model the request was resolved to (after a fallback, the one tried since); never the raw `model` a client sent. */
  model: Model | undefined;
  private upstream: { model: Model; startedAt: number; seconds?: number } | undefined;
  /** The `model` the client sent, when it was a string. */
  private asked: string | undefined;
  /** What the client was told, when the request failed. */
  private failure: AppError | undefined;
  /** What the provider answered when it failed the request (the last candidate's, after fallbacks). */
  private upstreamFailure: { status?: number; message?: string } | undefined;
  private billing: "charged" | "released" | undefined;
  private disconnected = false;
  /** The response, and the reservation while one is open. */
  private unfinished = 1;

  constructor(
    readonly id: string,
    private readonly method: string,
    private readonly sinks: { metrics: Metrics; log: Logger },
  ) {}

  /** The API key (and so the account) the request is made with. */
  identify(caller: { account: { id: string }; key: { prefix: string } }): void {
    this.accountId = caller.account.id;
    this.keyPrefix = caller.key.prefix;
  }

  resolved(model: Model): void {
    this.model = model;
  }

  /** The request's `model` as the client sent it, before anything is checked: a request refused as invalid is still found by it. */
  askedFor(model: unknown): void {
    if (typeof model === "string") this.asked = model.slice(0, ASKED_MODEL_LIMIT);
  }

  /** The error the client is told. A provider's failure brings what the provider answered. */
  failed(error: AppError): void {
    this.failure = error;
    if (error instanceof ProviderFailure) this.upstreamFailure = upstreamFailureOf(error);
  }

  opened(model: Model): void {
    this.unfinished++;
    this.upstream = { model, startedAt: performance.now() };
  }

  closed(charge: Charge | null): void {
    const upstream = this.upstream;
    if (upstream) {
      upstream.seconds = secondsSince(upstream.startedAt);
      this.sinks.metrics.upstream(upstream.model.provider, upstream.model.id, upstream.seconds);
      if (charge) this.sinks.metrics.charged(upstream.model.id, charge.promptTokens, charge.completionTokens, charge.cost);
    }
    this.billing = charge ? "charged" : "released";
    this.oneLess();
  }

  /** A candidate failed before answering and the next is tried: the request is now the next one's. */
  fellBack(from: Model, to: Model, reason: FallbackReason): void {
    this.sinks.metrics.fallback(from.id, to.id, reason);
    this.model = to;
    if (this.upstream) this.upstream.model = to;
  }

  /** The client left before its stream ended. */
  clientDisconnected(): void {
    this.disconnected = true;
  }

  /** The provider failed the request (answered 502, or cut its stream short). */
  providerFailed(error: unknown): void {
    this.upstreamFailure = upstreamFailureOf(error);
    if (this.model) this.sinks.metrics.providerError(this.model.provider);
  }

  /** The response has been handed over with `status` (for a stream: its headers). */
  responded(route: string, status: number): void {
    this.route = route;
    this.status = status;
    this.oneLess();
  }

  private oneLess(): void {
    this.unfinished--;
    if (this.unfinished === 0) this.finish();
  }

  private finish(): void {
    const seconds = secondsSince(this.startedAt);
    const model = this.model?.id;
    this.sinks.metrics.request(this.method, this.route, this.status, model ?? "", seconds);
    this.sinks.log.info("request", {
      requestId: this.id,
      method: this.method,
      route: this.route,
      status: this.status,
      latencyMs: milliseconds(seconds),
      model,
      // What the client named, where it is not the model served: an alias, a fallback, or a model that was refused.
      requestedModel: this.asked === model ? undefined : this.asked,
      accountId: this.accountId,
      keyPrefix: this.keyPrefix,
      upstreamMs: this.upstream?.seconds === undefined ? undefined : milliseconds(this.upstream.seconds),
      billing: this.billing,
      clientDisconnected: this.disconnected || undefined,
      errorType: this.failure?.kind,
      error: this.failure?.message,
      upstreamStatus: this.upstreamFailure?.status,
      upstreamError: this.upstreamFailure?.message,
    });
  }
}
