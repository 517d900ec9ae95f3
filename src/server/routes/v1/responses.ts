// POST /v1/responses: OpenAI's Responses API as a second front door onto the chat pipeline
// (src/core/responses/pipeline.ts), keeping each account's conversations (core/responses/stored.ts);
// errors in the chat shape, streams as Responses events. The stored responses are read and
// deleted under /v1/responses/{id} (responses-stored.ts).
import { Elysia } from "elysia";
import type { ChatProvider } from "../../../core/chat/provider.ts";
import type { StreamSink } from "../../../core/chat/relay.ts";
import { AppError } from "../../../core/errors.ts";
import { ResponseEvents } from "../../../core/responses/events.ts";
import { admitResponse, completeResponse } from "../../../core/responses/pipeline.ts";
import { parseResponsesRequest } from "../../../core/responses/request.ts";
import { conversationOf, newResponseId, storedTurn } from "../../../core/responses/stored.ts";
import { DAY_MS } from "../../../core/time.ts";
import type { LeaseKeeper } from "../../chat/lease-keeper.ts";
import { chatError, json, methodNotAllowed } from "../../http.ts";
import { answerHeaders, openAiDoor, pipelineHandler, pipelineRequest, streamed, type ChatDeps, type Serve, type Served } from "../../chat/front-door.ts";
import { storedResponsesRoutes } from "./responses-stored.ts";

type Fields = Record<string, unknown>;

const serveResponse: Serve = async (request, deps, leases, record, door, clientIp) => {
  const { body, ports, call, client, guard } = await pipelineRequest(request, deps, leases, record, door, clientIp);
  const parsed = parseResponsesRequest(body.value);
  const id = newResponseId();
  const retentionMs = deps.config.responsesRetentionDays * DAY_MS;
  const keep = parsed.store !== false && retentionMs > 0;
  // A request that continues stored state reads it for the key's holder; the admission then judges the key.
  const conversation = await guard(conversationOf(deps.store, call.keyHash, parsed, call.startedAt));
  // The provider is sent the whole conversation: its stored part bounds the prompt as the body does.
  const bodyBytes = body.bytes + conversation.storedBytes;
  if (bodyBytes > door.bodyLimit) {
    throw new AppError("payload_too_large", `The conversation (previous_response_id, item references and input) exceeds ${door.bodyLimit} bytes; start a new one`);
  }
  const effective = { ...parsed, input: conversation.input as typeof parsed.input, store: keep };
  // A refusal's hint names the ceiling as the Responses API does.
  const policy = { ...call.policy, ceilingName: "max_output_tokens" };
  const setup = { seal: deps.seal, toolPrices: deps.config.hostedToolPrices };
  const { admitted, ...answering } = await admitResponse(ports, { ...call, bodyBytes, policy }, effective, setup);
  const accountId = admitted.billing.reservation.accountId;
  const save = (response: Fields & { id: string }) =>
    deps.store.saveResponse(storedTurn(accountId, response, conversation.own, parsed, deps.now(), retentionMs, deps.seal))
      .catch((error: unknown) => deps.log.error("storing a response failed", { requestId: record.id, responseId: id, error }));
  if (parsed.stream) {
    // Taken out first, so that the closure (which lives as long as the stream) holds these and not `admitted`.
    const stream = { id, now: deps.now, seal: deps.seal, ...(keep ? { keep: save } : {}) };
    // The events echo the request's settings; the conversation stays with the provider's exchange.
    const echoed = { ...parsed, store: keep };
    const sinkFor = (sink: StreamSink, served: Served) => new ResponseEvents(sink, echoed, { ...stream, ...served });
    return streamed(answering.ports, admitted, client, record, sinkFor);
  }
  try {
    const response = await completeResponse({ admitted, ...answering }, id);
    if (keep) await save(response as Fields & { id: string });
    return json(response, 200, answerHeaders(admitted.target));
  } finally {
    client.detach();
  }
};

const notPost = methodNotAllowed(chatError, "POST");
const isWebSocketUpgrade = (request: Request): boolean => request.headers.get("upgrade")?.toLowerCase() === "websocket";

// Codex tries the Responses API's WebSocket mode when its provider is set to (`supports_websockets`):
// 426 is the answer it falls back to HTTP from at once (404 and 5xx are retried for seconds first, a 400 fails the turn).
const webSocketRefused = (): Response =>
  chatError(new AppError("upgrade_required", "The Responses API's WebSocket mode is not offered here; send POST /v1/responses"), { upgrade: "HTTP/1.1" });

/** Mounted by the chat routes, to share their provider adapter (and its key pools). */
export const responsesRoutes = (deps: ChatDeps & { provider: ChatProvider }, leases: LeaseKeeper) =>
  new Elysia({ name: "responses" })
    .post("/v1/responses", pipelineHandler(serveResponse, deps, leases, openAiDoor(deps.config.agentMaxBodyBytes)))
    .get("/v1/responses", ({ request }) => (isWebSocketUpgrade(request) ? webSocketRefused() : notPost()))
    .all("/v1/responses", notPost)
    .use(storedResponsesRoutes(deps));
