// POST /v1/chat/completions: HTTP in, a call of the chat pipeline (src/core/chat/pipeline.ts),
// HTTP out. POST /v1/responses and POST /v1/messages, the pipeline's other front doors, are
// mounted here too, to share the one provider adapter.
import { Elysia } from "elysia";
import { admitChat, completeChat } from "../../../core/chat/pipeline.ts";
import { parseChatRequest } from "../../../core/chat/request.ts";
import { answerHeaders, openAiDoor, pipelineHandler, pipelineRequest, streamed, type ChatDeps, type Serve } from "../../chat/front-door.ts";
import type { LeaseKeeper } from "../../chat/lease-keeper.ts";
import { chatError, json, methodNotAllowed } from "../../http.ts";
import { openAiCompatible } from "../../providers/openai-compatible.ts";
import { messagesRoutes } from "./messages.ts";
import { responsesRoutes } from "./responses.ts";

const serveChat: Serve = async (request, deps, leases, record, door, clientIp) => {
  const { body, ports, call, client } = await pipelineRequest(request, deps, leases, record, door, clientIp);
  const chat = parseChatRequest(body.value);
  const admitted = await admitChat(ports, { ...call, request: chat });
  if (chat.stream) return streamed(ports, admitted, client, record);
  try {
    return json(await completeChat(ports, admitted), 200, answerHeaders(admitted.target));
  } finally {
    client.detach();
  }
};

/** `leases` keeps this process's open reservations alive; graceful shutdown waits for it to empty. */
export function chatRoutes(deps: ChatDeps, leases: LeaseKeeper) {
  // One adapter for the process: its key pools remember which keys rest.
  const provider = openAiCompatible(deps.config.providers, {
    timeoutMs: deps.config.providerTimeoutMs,
    now: deps.now,
    observe: (name, keyIndex, outcome) => deps.metrics.providerAttempt(name, keyIndex, outcome),
  });
  return new Elysia({ name: "chat" })
    .post("/v1/chat/completions", pipelineHandler(serveChat, { ...deps, provider }, leases, openAiDoor(deps.config.chatMaxBodyBytes)))
    .all("/v1/chat/completions", methodNotAllowed(chatError, "POST"))
    .use(responsesRoutes({ ...deps, provider }, leases))
    .use(messagesRoutes({ ...deps, provider }, leases));
}
