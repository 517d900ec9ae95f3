// What the chat pipeline's front doors (chat completions, responses, messages) share: the
// request authenticated and read, the client's abort tied to the provider exchange, streams
// relayed under the disconnect policy, and failures rendered in the door's error shape.
import type { Config } from "../../config.ts";
import { openStream, type Admitted, type ChatCall, type ChatPorts } from "../../core/chat/pipeline.ts";
import type { Target } from "../../core/chat/target.ts";
import { CLIENT_LEFT, relayStream, type Relay, type StreamSink } from "../../core/chat/relay.ts";
import type { ChatProvider } from "../../core/chat/provider.ts";
import { AppError, isAppError } from "../../core/errors.ts";
import type { Store } from "../../core/ports.ts";
import type { ReasoningSeal } from "../../core/reasoning-seal.ts";
import { authenticateApiKey, presentedKeyHash } from "../api-key.ts";
import { BodyCutShort, readJsonBody } from "../body.ts";
import { clientIp, type PeerSource } from "../client-ip.ts";
import type { CatalogCache } from "../catalog-cache.ts";
import { chatError } from "../http.ts";
import { withFields, type Logger } from "../log.ts";
import type { Metrics } from "../observability/metrics.ts";
import { requestRecord } from "../observability/plugin.ts";
import type { RequestRecord } from "../observability/request-record.ts";
import { guarded, guardedBilling } from "./database-guard.ts";
import type { RefusalBudget } from "./refusal-budget.ts";
import type { LeaseKeeper } from "./lease-keeper.ts";
import { sseResponse } from "./sse-response.ts";

export interface ChatDeps {
  config: Config;
  store: Store;
  catalog: CatalogCache;
  log: Logger;
  now: () => number;
  metrics: Metrics;
  /** Seals the reasoning the doors write for translated models, and opens what comes back. */
  seal: ReasoningSeal;
  /** How many of a key's refused requests are recorded each minute. */
  refusals: RefusalBudget;
}

/** What differs between the front doors: where the key comes from, how large a body may be, how errors read. */
export interface Door {
  /** The key as an `Authorization` header value, wherever the door's clients send it. */
  authorization(request: Request): string | null;
  /** The 401's words when no key was sent, naming where the door's clients send it (else the bearer token's). */
  missingKey?: string;
  bodyLimit: number;
  renderError(error: AppError, requestId: string, headers?: Record<string, string>): Response;
}

/** The OpenAI doors: a bearer token, errors in the chat shape. */
export const openAiDoor = (bodyLimit: number): Door => ({
  authorization: (request) => request.headers.get("authorization"),
  bodyLimit,
  renderError: (error, _requestId, headers) => chatError(error, headers),
});

/**
 * Names the model that served the request (a fallback's, when the first failed), and the
 * client's fields that its family left out, when there are any.
 */
export const answerHeaders = ({ model, upstream }: Pick<Target, "model" | "upstream">): Record<string, string> =>
  upstream.dropped.length > 0 ? { "x-gateway-model": model.id, "x-gateway-dropped-params": upstream.dropped.join(",") } : { "x-gateway-model": model.id };

/** The candidate whose provider answered a stream, as a door's events name it. */
export interface Served {
  model: string;
  /** Answered in the door's own API rather than as chat chunks. */
  native: boolean;
}

// Declared out here: a default parameter's function would hold the call's parameters (the
// admitted request among them) for as long as the stream.
const chatChunks = (sink: StreamSink): StreamSink => sink;

/**
 * Streams: the relay runs against the response's sink. A client that leaves is released at
 * once, unless the policy is to read the provider's stream on and charge it.
 */
export async function streamed(
  ports: ChatPorts,
  admitted: Admitted,
  client: { upstream: AbortController; detach(): void },
  record: RequestRecord,
  /** How the client's events are written: chat chunks as they are unless another API's front door rewrites them. */
  sinkFor: (sink: StreamSink, served: Served) => StreamSink = chatChunks,
): Promise<Response> {
  const relay = await openStream(ports, admitted);
  // From here on a client that leaves is handled below, by the policy.
  if (relay.chargeWhenGone) client.detach();
  const served = { model: relay.model.id, native: admitted.target.native };
  return sseResponse(streamEnds(relay, served, client.upstream, record, sinkFor), answerHeaders(admitted.target));
}

/**
 * The two ends of a stream for its response. Made apart from `streamed` so that the closures,
 * which live as long as the stream, hold only the relay and not the admitted request (its
 * prompt, parsed and as sent), which the provider already has.
 */
function streamEnds(relay: Relay, served: Served, upstream: AbortController, record: RequestRecord, sinkFor: (sink: StreamSink, served: Served) => StreamSink) {
  return {
    // The relay writes its own failures to the client; what escapes it (a front door's
    // rewriting failing, say) ends the stream here rather than erroring the response.
    relay: async (sink: StreamSink) => {
      const door = sinkFor(sink, served);
      try {
        await relayStream(relay, door);
        await door.finished?.();
      } catch (error) {
        relay.log.error("relaying a stream failed", { error });
      }
    },
    clientLeft: async () => {
      record.clientDisconnected();
      if (relay.chargeWhenGone) return;
      upstream.abort();
      await relay.billing.releaseQuietly(CLIENT_LEFT);
    },
  };
}

/** A request on one of the chat pipeline's front doors, authenticated and read, ready to be admitted. */
interface PipelineRequest {
  body: { value: unknown; bytes: number };
  ports: ChatPorts;
  /** The call to admit, but for the request the front door parses from the body. */
  call: Omit<ChatCall, "request">;
  /** Aborted when the client leaves; `detach` stops that (a charged stream reads on). */
  client: { upstream: AbortController; detach(): void };
  /** A database step of the door's own before admission, as the pipeline's are: a failure or a missed deadline is a 503. */
  guard<T>(work: Promise<T>): Promise<T>;
}

/** Authenticates and reads a request to the chat pipeline, and ties its provider exchange to the client. */
export async function pipelineRequest(
  request: Request,
  deps: ChatDeps & { provider: ChatProvider },
  leases: LeaseKeeper,
  record: RequestRecord,
  door: Door,
  clientIp: () => string,
): Promise<PipelineRequest> {
  const { config, now } = deps;
  const log = requestLog(deps, record);
  const startedAt = now();
  const deadlineMs = databaseDeadline(config);
  // Only the token's shape here: the admission finds the key, in the same round trip as the
  // reservation on Postgres (`admitByKey`). A request that fails before it is authenticated
  // by `toldFirst`.
  const keyHash = presentedKeyHash(door.authorization(request), door.missingKey);
  const body = await readJsonBody(request, door.bodyLimit);
  record.askedFor((body.value as { model?: unknown } | null)?.model);

  const ports: ChatPorts = {
    store: guardedBilling(deps.store, { leases, log, now, refusals: deps.refusals }, deadlineMs),
    provider: deps.provider,
    findModel: (id) => guarded(deps.catalog.find(id), log, deadlineMs),
    findAlias: (name) => guarded(deps.catalog.alias(name), log, deadlineMs),
    leases,
    now,
    log,
  };
  // A client that leaves aborts the exchange; one that left while the request waited (on the
  // database, say) is not forwarded, and its reservation is released like any failed one's.
  const upstream = new AbortController();
  const onClientGone = () => upstream.abort();
  request.signal.addEventListener("abort", onClientGone, { once: true });
  if (request.signal.aborted) onClientGone();
  const call = {
    keyHash,
    bodyBytes: body.bytes,
    policy: { maxConcurrentRequests: config.maxConcurrentRequestsPerAccount, dashboardUrl: config.dashboardUrl },
    leaseMs: config.reservationLeaseMs,
    startedAt,
    observer: record,
    signal: upstream.signal,
    // The exchange's timeout aborts this same controller: one per request, not two.
    controller: upstream,
    chargeWhenGone: config.streamDisconnectPolicy === "charge",
    clientIp,
  };
  const detach = () => request.signal.removeEventListener("abort", onClientGone);
  return { body, ports, call, client: { upstream, detach }, guard: (work) => guarded(work, log, deadlineMs) };
}

/** A front door's own work on a request: its arguments are `pipelineRequest`'s, which it starts with. */
export type Serve = (
  request: Request, deps: ChatDeps & { provider: ChatProvider }, leases: LeaseKeeper, record: RequestRecord, door: Door, clientIp: () => string,
) => Promise<Response>;

/** A front door's handler: its request served, its failures rendered in the door's error shape. */
export const pipelineHandler =
  (serve: Serve, deps: ChatDeps & { provider: ChatProvider }, leases: LeaseKeeper, door: Door) =>
  async ({ request, server }: { request: Request; server: PeerSource }): Promise<Response> => {
    const record = requestRecord(request);
    const peer = () => clientIp(request, server, deps.config.trustProxy);
    try {
      return await serve(request, deps, leases, record, door, peer);
    } catch (error) {
      // Made only for a failed request: a served one's path allocates nothing for its errors.
      const told = (failure: AppError) => {
        record.failed(failure);
        return door.renderError(failure, record.id);
      };
      // The client left while sending its body: nothing was admitted and its key need not be
      // looked up; the request line says it left, as for a client that leaves mid-stream.
      if (error instanceof BodyCutShort) {
        record.clientDisconnected();
        return told(error);
      }
      const failure = await toldFirst(error, request, deps, record, door, peer);
      if (isAppError(failure)) return told(failure);
      deps.log.error("unhandled error on the chat path", { requestId: record.id, error: failure });
      return told(new AppError("internal", "Internal server error"));
    }
  };

// Failures that a key's own refusal could not change, or that another lookup would only wait out again.
const KEY_LOOKUP_WOULD_NOT_CHANGE = new Set(["authentication_error", "permission_error", "unavailable"]);

/**
 * What a failed request is told. A bad key's 401 or 403 comes before anything about the body,
 * as it did when the key was looked up first: a request that failed before its admission found
 * the key (a malformed body, an unknown model, …) has its key looked up now, and a refusal of
 * the key is told instead.
 */
async function toldFirst(error: unknown, request: Request, deps: ChatDeps, record: RequestRecord, door: Door, clientIp: () => string): Promise<unknown> {
  if (record.accountId !== undefined || (isAppError(error) && KEY_LOOKUP_WOULD_NOT_CHANGE.has(error.kind))) return error;
  try {
    const lookup = authenticateApiKey(deps.store, door.authorization(request), deps.now(), { model: null, clientIp }, door.missingKey);
    record.identify(await guarded(lookup, requestLog(deps, record), databaseDeadline(deps.config)));
    return error;
  } catch (refusal) {
    return refusal;
  }
}

/** What this request logs beside its request line carries its ID, to be found together. */
const requestLog = (deps: ChatDeps, record: RequestRecord) => withFields(deps.log, { requestId: record.id });

// SQLite answers synchronously (a lock is waited for inside the call, up to its busy timeout),
// so no timer could fire before its answer: only Postgres steps get a deadline.
export const databaseDeadline = (config: Config) => (config.databaseUrl.startsWith("sqlite:") ? undefined : config.databaseTimeoutMs);

