import { Elysia } from "elysia";
import type { Config } from "../../config.ts";
import { parseChatRequest } from "../../core/chat-request.ts";
import { AppError, isAppError } from "../../core/errors.ts";
import { requestCost } from "../../core/money.ts";
import { outputCeiling, upstreamBody } from "../../core/quirks.ts";
import type { Store } from "../../core/store.ts";
import { estimatePromptTokens } from "../../core/tokens.ts";
import { authenticateApiKey } from "../api-key.ts";
import { readJsonBody } from "../body.ts";
import type { CatalogCache } from "../catalog-cache.ts";
import { BillingSession, LeaseKeeper } from "../chat/billing-session.ts";
import { relayStream } from "../chat/relay-stream.ts";
import { withDeadline } from "../deadline.ts";
import { chatError, json, methodNotAllowed } from "../http.ts";
import { withFields, type Logger } from "../log.ts";
import { requestRecord } from "../observability/plugin.ts";
import type { RequestRecord } from "../observability/request-record.ts";
import {
  readUpstreamJson, readUpstreamText, send, toCompletion, unreachable, upstreamFailure,
} from "../providers/openai-compatible.ts";

export interface ChatDeps {
  config: Config;
  store: Store;
  catalog: CatalogCache;
  log: Logger;
  now: () => number;
}

const ADMITTED_TOO_LATE = "The reservation was taken after the request had stopped waiting for the database";
const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" };

/**
 * Database steps on the chat path. A failure is a 503: the client may retry, nothing was
 * charged. Steps before anything is forwarded also get a deadline, so that a database cut off
 * by the network is a 503 too rather than a request that hangs (a reservation that commits
 * after its deadline is released when it does, below). The settlement gets none: answering
 * before its outcome is known could charge a client who was told that the request failed.
 */
async function guarded<T>(work: Promise<T>, log: Logger, deadlineMs?: number): Promise<T> {
  try {
    return await (deadlineMs === undefined ? work : withDeadline(work, deadlineMs));
  } catch (error) {
    if (isAppError(error)) throw error;
    log.error("database error on the chat path", { error });
    throw new AppError("unavailable", "The service is temporarily unavailable; please retry");
  }
}

async function completeChat(request: Request, deps: ChatDeps, leases: LeaseKeeper, record: RequestRecord): Promise<Response> {
  const { config, store, catalog, now } = deps;
  // What this request logs beside its request line carries its ID, to be found together.
  const log = withFields(deps.log, { requestId: record.id });
  const startedAt = now();
  // SQLite answers synchronously (a lock is waited for inside the call, up to its busy
  // timeout), so no timer could fire before its answer: only Postgres steps get a deadline.
  const deadlineMs = config.databaseUrl.startsWith("sqlite:") ? undefined : config.databaseTimeoutMs;
  const caller = await guarded(authenticateApiKey(store, request.headers.get("authorization"), startedAt), log, deadlineMs);
  record.identify(caller);

  const body = await readJsonBody(request);
  if (!body.ok) throw body.error;
  const chat = parseChatRequest(body.value);

  const model = await guarded(catalog.find(chat.model), log, deadlineMs);
  if (!model || !model.enabled) {
    throw new AppError("invalid_request_error", `The model \`${chat.model}\` does not exist or is not enabled`);
  }
  record.model = model;
  const ceiling = outputCeiling(chat, model);
  const amount = requestCost(estimatePromptTokens(body.bytes, chat.messages.length), ceiling, model);
  const leaseMs = config.reservationLeaseMs;
  const reserving = leases.track(
    store.reserve({
      account: caller.account,
      key: caller.key,
      model: model.id,
      requestedModel: chat.model,
      amount,
      policy: { maxConcurrentRequests: config.maxConcurrentRequestsPerAccount, dashboardUrl: config.dashboardUrl },
      leaseMs,
      now: startedAt,
    }),
  );
  const reserved = await guarded(reserving, log, deadlineMs).catch((error: unknown) => {
    // The request ends here (its deadline passed, or the database failed): a reservation that
    // is taken all the same is released at once, not held until its lease runs out.
    const releaseLate = reserving.then(
      (late) =>
        late.ok ? store.release({ reservationId: late.reservationId, reason: ADMITTED_TOO_LATE, latencyMs: now() - startedAt, now: now() }) : undefined,
      () => undefined, // the admission itself failed (logged by `guarded`): nothing was taken
    );
    leases.track(releaseLate).catch((e) => log.warn("releasing a reservation taken too late failed", { error: e }));
    throw error;
  });
  if (!reserved.ok) throw reserved.error;

  const billing = new BillingSession(store, leases, now, log, {
    id: reserved.reservationId,
    accountId: caller.account.id,
    keyId: caller.key.id,
    model,
    requestedModel: chat.model,
    amount,
    startedAt,
  }, record);
  const abort = new AbortController();
  const timeoutMs = config.providerTimeoutMs;
  // Until the response starts, the timeout covers the whole exchange; a stream's timeout
  // then moves to the gaps between its chunks.
  const deadline = setTimeout(() => abort.abort(new DOMException("timed out", "TimeoutError")), timeoutMs);
  const onClientGone = () => abort.abort();
  request.signal.addEventListener("abort", onClientGone, { once: true });
  // A client that left while the request waited (on the database, say) is not forwarded: its
  // reservation is released below like any failed request's, and nothing is charged.
  if (request.signal.aborted) onClientGone();

  try {
    let upstream: Response;
    try {
      upstream = await send(config.providers[model.provider], upstreamBody(chat, model, ceiling), abort.signal);
    } catch {
      throw unreachable(abort.signal.reason?.name === "TimeoutError", timeoutMs);
    }
    if (!upstream.ok) throw upstreamFailure(upstream.status, await readUpstreamText(upstream).catch(() => ""));

    if (chat.stream) {
      clearTimeout(deadline);
      const stream = relayStream({ upstream, abort, idleTimeoutMs: timeoutMs, model, billing, log, record });
      return new Response(stream, { headers: SSE_HEADERS });
    }

    let completion: ReturnType<typeof toCompletion>;
    try {
      completion = toCompletion(await readUpstreamJson(upstream), model, now());
    } catch (error) {
      // Too large is said as such; a body cut short or too slow is a failed request.
      throw isAppError(error) ? error : unreachable(abort.signal.reason?.name === "TimeoutError", timeoutMs);
    }
    if (!completion) throw new AppError("provider_error", "Upstream provider returned a malformed response");
    await guarded(billing.settle(completion.usage), log);
    return json(completion.response);
  } catch (error) {
    const reason = isAppError(error) ? error.message : "internal error";
    await billing.release(reason).catch((e) => log.error("releasing a reservation failed", { error: e }));
    throw error;
  } finally {
    clearTimeout(deadline);
    if (!chat.stream) request.signal.removeEventListener("abort", onClientGone);
  }
}

/** `leases` keeps this process's open reservations alive; graceful shutdown waits for it to empty. */
export const chatRoutes = (deps: ChatDeps, leases: LeaseKeeper) =>
  new Elysia({ name: "chat" })
    .post("/v1/chat/completions", async ({ request }) => {
      const record = requestRecord(request);
      try {
        return await completeChat(request, deps, leases, record);
      } catch (error) {
        if (isAppError(error) && error.kind === "provider_error") record.providerFailed();
        if (isAppError(error)) return chatError(error);
        deps.log.error("unhandled error on the chat path", { requestId: record.id, error });
        return chatError(new AppError("internal", "Internal server error"));
      }
    })
    .all("/v1/chat/completions", methodNotAllowed(chatError, "POST"));
