import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { PROVIDERS, type Provider } from "../../core/catalog.ts";
import { BUILD_INFO, type BuildInfo } from "../../build-info.ts";
import type { Nanos } from "../../core/money.ts";
import type { DatabaseObserver } from "../../db/database.ts";
import { CounterFamily, HistogramFamily } from "./series.ts";

// Chat requests take seconds and streams minutes; the public endpoints take milliseconds.
const REQUEST_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const DATABASE_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const NANOS_PER_USD = 1e9;

let processRegistry: Registry | undefined;

/**
 * CPU, memory, open files, event-loop lag and GC under their standard names (`process_*`,
 * `nodejs_*`). They describe the process, so there is one set however many gateways it runs.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * One gateway's Prometheus metrics. Every label value comes from a closed set (route
 * templates, status codes, catalog model IDs, provider names), never from user input, so the
 * number of series stays bounded. Updates are O(1) and never wait.
 */
export class Metrics {
  private readonly registry = new Registry();
  private readonly registers = [this.registry];

  private readonly requests = new CounterFamily(
    "gateway_http_requests_total",
    "HTTP requests answered, by method, route template, status and catalog model (empty when none)",
    ["method", "route", "status", "model"], this.registry,
  );
  private readonly requestDuration = new HistogramFamily(
    "gateway_http_request_duration_seconds",
    "Time from a request's arrival until its answer was complete (for a chat stream, until the stream ended)",
    ["method", "route", "model"], REQUEST_BUCKETS_S, this.registry,
  );
  private readonly upstreamDuration = new HistogramFamily(
    "gateway_upstream_duration_seconds",
    "Time from forwarding a chat request to its provider until the provider's answer was complete or had failed",
    ["provider", "model"], REQUEST_BUCKETS_S, this.registry,
  );
  private readonly tokens = new CounterFamily(
    "gateway_tokens_total",
    "Tokens charged, as the provider reported them, by model and type (prompt or completion)",
    ["model", "type"], this.registry,
  );
  private readonly chargedUsd = new CounterFamily(
    "gateway_charged_usd_total",
    "USD charged to accounts for chat completions, by model (the ledger is exact; this is for graphs)",
    ["model"], this.registry,
  );
  private readonly providerErrors = new CounterFamily(
    "gateway_provider_errors_total",
    "Chat requests the provider failed: unreachable, timed out, an error status other than 400/422, a malformed answer or a stream cut short",
    ["provider"], this.registry,
  );
  private readonly providerAttempts = new CounterFamily(
    "gateway_provider_attempts_total",
    "Requests sent to a provider, by provider, key (its position in <P>_API_KEY, never the key) and outcome: ok, rejected (400/422), refused (401/403), throttled (429), failed (5xx), unreachable",
    ["provider", "key", "outcome"], this.registry,
  );
  private readonly fallbacks = new CounterFamily(
    "gateway_fallbacks_total",
    "Chat requests passed from one candidate model to the next before answering, by the model given up, the one tried next and why (unreachable, timeout, rate_limited, server_error, context_length)",
    ["from", "to", "reason"], this.registry,
  );
  private readonly estimatorFallbacks = new CounterFamily(
    "gateway_estimator_fallbacks_total",
    "Estimator answers given by the deterministic estimate because ESTIMATOR_MODEL was unavailable or failed",
    [], this.registry,
  );
  private readonly databaseDuration = new HistogramFamily(
    "gateway_db_query_duration_seconds",
    "Time the database took for one unit of work: a query, or a transaction from being asked for until its commit",
    ["kind"], DATABASE_BUCKETS_S, this.registry,
  );
  private readonly databaseErrors = new CounterFamily(
    "gateway_db_query_errors_total",
    "Queries and transactions that failed or were rolled back",
    ["kind"], this.registry,
  );
  private readOpenReservations: () => number = () => 0;
  private readonly openReservations: Gauge = new Gauge({
    name: "gateway_reservations_open",
    help: "Credit reservations held by chat requests in flight on this instance",
    registers: this.registers,
    collect: () => {
      this.openReservations.set(this.readOpenReservations());
    },
  });

  constructor(build: BuildInfo = BUILD_INFO) {
    // The usual build-info gauge: always 1, its labels say which binary answers (a rollout is seen in them).
    new Gauge({ name: "gateway_build_info", help: "The gateway's version and the commit it was built from", labelNames: ["version", "commit"], registers: this.registers })
      .set({ version: build.version, commit: build.commit }, 1);
    // Series that alerts watch exist from the start at zero, so that rate() sees the first one.
    for (const provider of PROVIDERS) this.providerErrors.series(provider).inc(0);
    this.estimatorFallbacks.series().inc(0);
  }

  readonly contentType = this.registry.contentType;

  /** The text exposition of this gateway's metrics and the process's. */
  async exposition(): Promise<string> {
    return `${await processMetrics().metrics()}\n${await this.registry.metrics()}`;
  }


  request(method: string, route: string, status: number, model: string, seconds: number): void {
    this.requests.series(method, route, String(status), model).inc();
    this.requestDuration.series(method, route, model).observe(seconds);
  }

  upstream(provider: Provider, model: string, seconds: number): void {
    this.upstreamDuration.series(provider, model).observe(seconds);
  }

  charged(model: string, promptTokens: number, completionTokens: number, cost: Nanos): void {
    this.tokens.series(model, "prompt").inc(promptTokens);
    this.tokens.series(model, "completion").inc(completionTokens);
    this.chargedUsd.series(model).inc(Number(cost) / NANOS_PER_USD);
  }

  providerError(provider: Provider): void {
    this.providerErrors.series(provider).inc();
  }

  providerAttempt(provider: Provider, keyIndex: number | null, outcome: string): void {
    this.providerAttempts.series(provider, keyIndex === null ? "none" : String(keyIndex), outcome).inc();
  }

  fallback(from: string, to: string, reason: string): void {
    this.fallbacks.series(from, to, reason).inc();
  }

  estimatorFallback(): void {
    this.estimatorFallbacks.series().inc();
  }

  /** Where the open-reservations gauge reads its value at each scrape. */
  countOpenReservationsWith(read: () => number): void {
    this.readOpenReservations = read;
  }

  /** For `openDatabase`: times every query and transaction. */
  readonly observeDatabase: DatabaseObserver = (kind, seconds, failed) => {
    this.databaseDuration.series(kind).observe(seconds);
    if (failed) this.databaseErrors.series(kind).inc();
  };
}
