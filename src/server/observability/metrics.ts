import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { PROVIDERS, type Provider } from "../../core/catalog.ts";
import type { Nanos } from "../../core/money.ts";
import type { DatabaseObserver } from "../../db/database.ts";

// Chat requests take seconds and streams minutes; the public endpoints take milliseconds.
const REQUEST_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const DATABASE_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const NANOS_PER_USD = 1e9;

let processRegistry: Registry | undefined;

/**
 * A metric's child per label set, made once: prom-client hashes a label object on every update
 * (its keys sorted and joined), about a microsecond each, and a chat request makes ten updates.
 * Label values come from closed sets, so the cache stays small.
 */
function byLabels<T>(child: (...values: string[]) => T): (...values: string[]) => T {
  const made = new Map<string, T>();
  return (...values) => {
    const key = values.join("\u0000");
    let found = made.get(key);
    if (found === undefined) {
      found = child(...values);
      made.set(key, found);
    }
    return found;
  };
}

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

  private readonly requests = new Counter({
    name: "gateway_http_requests_total",
    help: "HTTP requests answered, by method, route template, status and catalog model (empty when none)",
    labelNames: ["method", "route", "status", "model"],
    registers: this.registers,
  });
  private readonly requestDuration = new Histogram({
    name: "gateway_http_request_duration_seconds",
    help: "Time from a request's arrival until its answer was complete (for a chat stream, until the stream ended)",
    labelNames: ["method", "route", "model"],
    buckets: REQUEST_BUCKETS_S,
    registers: this.registers,
  });
  private readonly upstreamDuration = new Histogram({
    name: "gateway_upstream_duration_seconds",
    help: "Time from forwarding a chat request to its provider until the provider's answer was complete or had failed",
    labelNames: ["provider", "model"],
    buckets: REQUEST_BUCKETS_S,
    registers: this.registers,
  });
  private readonly tokens = new Counter({
    name: "gateway_tokens_total",
    help: "Tokens charged, as the provider reported them, by model and type (prompt or completion)",
    labelNames: ["model", "type"],
    registers: this.registers,
  });
  private readonly chargedUsd = new Counter({
    name: "gateway_charged_usd_total",
    help: "USD charged to accounts for chat completions, by model (the ledger is exact; this is for graphs)",
    labelNames: ["model"],
    registers: this.registers,
  });
  private readonly providerErrors = new Counter({
    name: "gateway_provider_errors_total",
    help: "Chat requests the provider failed: unreachable, timed out, an error status other than 400/422, a malformed answer or a stream cut short",
    labelNames: ["provider"],
    registers: this.registers,
  });
  private readonly providerAttempts = new Counter({
    name: "gateway_provider_attempts_total",
    help: "Requests sent to a provider, by provider, key (its position in <P>_API_KEY, never the key) and outcome: ok, rejected (400/422), refused (401/403), throttled (429), failed (5xx), unreachable",
    labelNames: ["provider", "key", "outcome"],
    registers: this.registers,
  });
  private readonly estimatorFallbacks = new Counter({
    name: "gateway_estimator_fallbacks_total",
    help: "Estimator answers given by the deterministic estimate because ESTIMATOR_MODEL was unavailable or failed",
    registers: this.registers,
  });
  private readonly databaseDuration = new Histogram({
    name: "gateway_db_query_duration_seconds",
    help: "Time the database took for one unit of work: a query, or a transaction from being asked for until its commit",
    labelNames: ["kind"],
    buckets: DATABASE_BUCKETS_S,
    registers: this.registers,
  });
  private readonly databaseErrors = new Counter({
    name: "gateway_db_query_errors_total",
    help: "Queries and transactions that failed or were rolled back",
    labelNames: ["kind"],
    registers: this.registers,
  });
  private readOpenReservations: () => number = () => 0;
  private readonly openReservations: Gauge = new Gauge({
    name: "gateway_reservations_open",
    help: "Credit reservations held by chat requests in flight on this instance",
    registers: this.registers,
    collect: () => {
      this.openReservations.set(this.readOpenReservations());
    },
  });

  constructor() {
    // Series that alerts watch exist from the start at zero, so that rate() sees the first one.
    for (const provider of PROVIDERS) this.providerErrors.labels(provider).inc(0);
    this.estimatorFallbacks.inc(0);
  }

  readonly contentType = this.registry.contentType;

  /** The text exposition of this gateway's metrics and the process's. */
  async exposition(): Promise<string> {
    return `${await processMetrics().metrics()}\n${await this.registry.metrics()}`;
  }

  private readonly requestsOf = byLabels((method, route, status, model) => this.requests.labels(method, route, status, model));
  private readonly requestDurationOf = byLabels((method, route, model) => this.requestDuration.labels(method, route, model));
  private readonly upstreamDurationOf = byLabels((provider, model) => this.upstreamDuration.labels(provider, model));
  private readonly tokensOf = byLabels((model, type) => this.tokens.labels(model, type));
  private readonly chargedUsdOf = byLabels((model) => this.chargedUsd.labels(model));
  private readonly providerAttemptsOf = byLabels((provider, key, outcome) => this.providerAttempts.labels(provider, key, outcome));
  private readonly databaseDurationOf = byLabels((kind) => this.databaseDuration.labels(kind));

  request(method: string, route: string, status: number, model: string, seconds: number): void {
    this.requestsOf(method, route, String(status), model).inc();
    this.requestDurationOf(method, route, model).observe(seconds);
  }

  upstream(provider: Provider, model: string, seconds: number): void {
    this.upstreamDurationOf(provider, model).observe(seconds);
  }

  charged(model: string, promptTokens: number, completionTokens: number, cost: Nanos): void {
    this.tokensOf(model, "prompt").inc(promptTokens);
    this.tokensOf(model, "completion").inc(completionTokens);
    this.chargedUsdOf(model).inc(Number(cost) / NANOS_PER_USD);
  }

  providerError(provider: Provider): void {
    this.providerErrors.inc({ provider });
  }

  providerAttempt(provider: Provider, keyIndex: number | null, outcome: string): void {
    this.providerAttemptsOf(provider, keyIndex === null ? "none" : String(keyIndex), outcome).inc();
  }

  estimatorFallback(): void {
    this.estimatorFallbacks.inc();
  }

  /** Where the open-reservations gauge reads its value at each scrape. */
  countOpenReservationsWith(read: () => number): void {
    this.readOpenReservations = read;
  }

  /** For `openDatabase`: times every query and transaction. */
  readonly observeDatabase: DatabaseObserver = (kind, seconds, failed) => {
    this.databaseDurationOf(kind).observe(seconds);
    if (failed) this.databaseErrors.inc({ kind });
  };
}
