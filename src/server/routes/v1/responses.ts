// POST /v1/responses: OpenAI's Responses API as a second front door onto the chat pipeline
// (src/core/responses/pipeline.ts); errors in the chat shape, streams as Responses events.
import { Elysia } from "elysia";
import type { ChatProvider } from "../../../core/chat/provider.ts";
import type { StreamSink } from "../../../core/chat/relay.ts";
import { ResponseEvents } from "../../../core/responses/events.ts";
import { admitResponse, completeResponse } from "../../../core/responses/pipeline.ts";
import { parseResponsesRequest } from "../../../core/responses/request.ts";
import type { LeaseKeeper } from "../../chat/lease-keeper.ts";
import { chatError, json, methodNotAllowed } from "../../http.ts";
import type { RequestRecord } from "../../observability/request-record.ts";
import { droppedHeader, openAiDoor, pipelineHandler, pipelineRequest, streamed, type ChatDeps, type Door } from "../../chat/front-door.ts";

async function serveResponse(request: Request, deps: ChatDeps & { provider: ChatProvider }, leases: LeaseKeeper, record: RequestRecord, door: Door): Promise<Response> {
  const { body, ports, call, client } = await pipelineRequest(request, deps, leases, record, door);
  const parsed = parseResponsesRequest(body.value);
  const { admitted, ...answering } = await admitResponse(ports, call, parsed);
  if (parsed.stream) {
    // Taken out first, so that the closure (which lives as long as the stream) holds these and not `admitted`.
    const stream = { model: admitted.model.id, native: answering.native, now: deps.now };
    const sinkFor = (sink: StreamSink) => new ResponseEvents(sink, parsed, stream);
    return streamed(answering.ports, admitted, client, record, sinkFor);
  }
  try {
    return json(await completeResponse({ admitted, ...answering }), 200, droppedHeader(admitted));
  } finally {
    client.detach();
  }
}

/** Mounted by the chat routes, to share their provider adapter (and its key pools). */
export const responsesRoutes = (deps: ChatDeps & { provider: ChatProvider }, leases: LeaseKeeper) =>
  new Elysia({ name: "responses" })
    .post("/v1/responses", pipelineHandler(serveResponse, deps, leases, openAiDoor(deps.config.agentMaxBodyBytes)))
    .all("/v1/responses", methodNotAllowed(chatError, "POST"));
