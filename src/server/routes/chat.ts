// POST /v1/chat/completions: HTTP in, a call of the chat pipeline (src/core/chat/pipeline.ts),
// HTTP out.
import { Elysia } from "elysia";
import type { Config } from "../../config.ts";
import { admitChat, completeChat, openStream, type Admitted, type ChatPorts } from "../../core/chat/pipeline.ts";
import { CLIENT_LEFT, relayStream } from "../../core/chat/relay.ts";
import type { ChatProvider } from "../../core/chat/provider.ts";
import { parseChatRequest } from "../../core/chat/request.ts";
import { AppError, isAppError } from "../../core/errors.ts";
import type { Store } from "../../core/store.ts";
import { authenticateApiKey } from "../api-key.ts";
import { readJsonBody } from "../body.ts";
import type { CatalogCache } from "../catalog-cache.ts";
import { guarded, guardedBilling } from "../chat/database-guard.ts";
import type { LeaseKeeper } from "../chat/lease-keeper.ts";
import { sseResponse } from "../chat/sse-response.ts";
import { chatError, json, methodNotAllowed } from "../http.ts";
import { withFields, type Logger } from "../log.ts";
import { requestRecord } from "../observability/plugin.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { RequestRecord } from "../observability/request-record.ts";
import { openAiCompatible } from "../providers/openai-compatible.ts";

interface ChatDeps {
  config: Config;
  store: Store;
  catalog: CatalogCache;
  log: Logger;
  now: () => number;
  metrics: Metrics;
}

/** Names the client's fields that the model's family left out, when there are any. */
const droppedHeader = (admitted: Admitted): Record<string, string> =>
  admitted.upstream.dropped.length > 0 ? { "x-gateway-dropped-params": admitted.upstream.dropped.join(",") } : {};

/**
 * Streams: the relay runs against the response's sink. A client that leaves is released at
 * once, unless the policy is to read the provider's stream on and charge it.
 */
function streamed(
  ports: ChatPorts,
  admitted: Admitted,
  client: { upstream: AbortController; detach(): void },
  record: RequestRecord,
): Promise<Response> {
  const { upstream } = client;
  return openStream(ports, admitted).then((relay) => {
    // From here on a client that leaves is handled below, by the policy.
    if (relay.chargeWhenGone) client.detach();
    return sseResponse(
      {
        relay: (sink) => relayStream(relay, sink),
        clientLeft: async () => {
          record.clientDisconnected();
          if (relay.chargeWhenGone) return;
          upstream.abort();
          await admitted.billing.releaseQuietly(CLIENT_LEFT);
        },
      },
      droppedHeader(admitted),
    );
  });
}

async function serveChat(
  request: Request,
  deps: ChatDeps & { provider: ChatProvider },
  leases: LeaseKeeper,
  record: RequestRecord,
): Promise<Response> {
  const { config, now } = deps;
  // What this request logs beside its request line carries its ID, to be found together.
  const log = withFields(deps.log, { requestId: record.id });
  const startedAt = now();
  // SQLite answers synchronously (a lock is waited for inside the call, up to its busy
  // timeout), so no timer could fire before its answer: only Postgres steps get a deadline.
  const deadlineMs = config.databaseUrl.startsWith("sqlite:") ? undefined : config.databaseTimeoutMs;
  const caller = await guarded(authenticateApiKey(deps.store, request.headers.get("authorization"), startedAt), log, deadlineMs);
  record.identify(caller);

  const body = await readJsonBody(request);
  const chat = parseChatRequest(body.value);

  const ports: ChatPorts = {
    store: guardedBilling(deps.store, { leases, log, now }, deadlineMs),
    provider: deps.provider,
    findModel: (id) => guarded(deps.catalog.find(id), log, deadlineMs),
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
  const admitted = await admitChat(ports, {
    caller,
    request: chat,
    bodyBytes: body.bytes,
    policy: { maxConcurrentRequests: config.maxConcurrentRequestsPerAccount, dashboardUrl: config.dashboardUrl },
    leaseMs: config.reservationLeaseMs,
    startedAt,
    observer: record,
    signal: upstream.signal,
    chargeWhenGone: config.streamDisconnectPolicy === "charge",
  });
  const detach = () => request.signal.removeEventListener("abort", onClientGone);
  if (chat.stream) return streamed(ports, admitted, { upstream, detach }, record);
  try {
    return json(await completeChat(ports, admitted), 200, droppedHeader(admitted));
  } finally {
    detach();
  }
}

/** `leases` keeps this process's open reservations alive; graceful shutdown waits for it to empty. */
export function chatRoutes(deps: ChatDeps, leases: LeaseKeeper) {
  // One adapter for the process: its key pools remember which keys rest.
  const provider = openAiCompatible(deps.config.providers, {
    timeoutMs: deps.config.providerTimeoutMs,
    now: deps.now,
    observe: (name, keyIndex, outcome) => deps.metrics.providerAttempt(name, keyIndex, outcome),
  });
  return new Elysia({ name: "chat" })
    .post("/v1/chat/completions", async ({ request }) => {
      const record = requestRecord(request);
      try {
        return await serveChat(request, { ...deps, provider }, leases, record);
      } catch (error) {
        if (isAppError(error)) return chatError(error);
        deps.log.error("unhandled error on the chat path", { requestId: record.id, error });
        return chatError(new AppError("internal", "Internal server error"));
      }
    })
    .all("/v1/chat/completions", methodNotAllowed(chatError, "POST"));
}
