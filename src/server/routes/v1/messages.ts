// POST /v1/messages: Anthropic's Messages API as the chat pipeline's third front door
// (src/core/messages/pipeline.ts), for Claude Code and the Anthropic SDKs; errors in
// Anthropic's envelope, streams as Anthropic's events. POST /v1/messages/count_tokens estimates.
import { Elysia } from "elysia";
import { PROVIDERS } from "../../../core/catalog.ts";
import type { ChatProvider } from "../../../core/chat/provider.ts";
import type { StreamSink } from "../../../core/chat/relay.ts";
import { AppError } from "../../../core/errors.ts";
import { accessRefusal } from "../../../core/keys/allowlist.ts";
import { countTokens } from "../../../core/messages/count-tokens.ts";
import { anthropicErrorBody, anthropicStatus } from "../../../core/messages/errors.ts";
import { MessageEvents } from "../../../core/messages/events.ts";
import { admitMessage, completeMessage } from "../../../core/messages/pipeline.ts";
import { parseCountTokensRequest, parseMessagesRequest } from "../../../core/messages/request.ts";
import { authenticateApiKey } from "../../api-key.ts";
import { readJsonBody } from "../../body.ts";
import { clientIp, type PeerSource } from "../../client-ip.ts";
import type { LeaseKeeper } from "../../chat/lease-keeper.ts";
import { answerHeaders, pipelineHandler, pipelineRequest, streamed, type ChatDeps, type Door, type Serve, type Served } from "../../chat/front-door.ts";
import { asAppError, errorHeaders, json } from "../../http.ts";
import { requestRecord } from "../../observability/plugin.ts";

/** Anthropic's clients send the key as `x-api-key`; Claude Code with ANTHROPIC_AUTH_TOKEN as a bearer token. */
const authorization = (request: Request): string | null => {
  const apiKey = request.headers.get("x-api-key");
  return apiKey ? `Bearer ${apiKey}` : request.headers.get("authorization");
};

const MISSING_KEY = "Missing API key: send x-api-key: <API key> (or Authorization: Bearer <API key>)";

/** Anthropic's error envelope, with the chat surface's retry hints (Anthropic's SDKs obey `x-should-retry` too). */
const anthropicError = (error: AppError, requestId: string, headers: Record<string, string> = {}): Response =>
  json(anthropicErrorBody(error, requestId), anthropicStatus(error), { ...errorHeaders(error), "request-id": requestId, ...headers });

const serveMessage: Serve = async (request, deps, leases, record, door, clientIp) => {
  const { body, ports, call, client } = await pipelineRequest(request, deps, leases, record, door, clientIp);
  const parsed = parseMessagesRequest(body.value);
  const native = new Set(PROVIDERS.filter((p) => deps.config.providers[p].anthropicBaseUrl));
  const { admitted, ...answering } = await admitMessage(ports, { ...call, native, seal: deps.seal }, parsed);
  if (parsed.stream) {
    const seal = deps.seal;
    const sinkFor = (sink: StreamSink, served: Served) => new MessageEvents(sink, { ...served, seal });
    return streamed(answering.ports, admitted, client, record, sinkFor);
  }
  try {
    return json(await completeMessage({ admitted, ...answering }), 200, { ...answerHeaders(admitted.target), "request-id": record.id });
  } finally {
    client.detach();
  }
};

const postOnly = ({ request }: { request: Request }): Response =>
  anthropicError(new AppError("method_not_allowed", "Method not allowed. Use POST."), requestRecord(request).id, { allow: "POST" });

/** Mounted by the chat routes, to share their provider adapter (and its key pools). */
export function messagesRoutes(deps: ChatDeps & { provider: ChatProvider }, leases: LeaseKeeper) {
  const door: Door = { authorization, missingKey: MISSING_KEY, bodyLimit: deps.config.agentMaxBodyBytes, renderError: anthropicError };
  const countTokensHandler = async ({ request, server }: { request: Request; server: PeerSource }): Promise<Response> => {
    const record = requestRecord(request);
    try {
      const ip = () => clientIp(request, server, deps.config.trustProxy);
      // The key and its address first, as every door tells them before a malformed body.
      const { key } = await authenticateApiKey(deps.store, authorization(request), deps.now(), { model: null, clientIp: ip }, MISSING_KEY);
      const body = (await readJsonBody(request, door.bodyLimit)).value;
      record.askedFor((body as { model?: unknown } | null)?.model);
      const parsed = parseCountTokensRequest(body);
      // Then its models, as /v1/messages judges them: a key kept from a model gets the same 403
      // here, so that a client learns of the refusal before it sends the conversation itself.
      const refusal = accessRefusal(key, parsed.model, ip);
      if (refusal) throw refusal;
      return json({ input_tokens: countTokens(parsed) });
    } catch (error) {
      const told = asAppError(error, deps.log, record.id);
      record.failed(told);
      return door.renderError(told, record.id);
    }
  };
  return new Elysia({ name: "messages" })
    .post("/v1/messages", pipelineHandler(serveMessage, deps, leases, door))
    .post("/v1/messages/count_tokens", countTokensHandler)
    .all("/v1/messages", postOnly)
    .all("/v1/messages/count_tokens", postOnly);
}
