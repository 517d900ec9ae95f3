// A Responses API request on the chat pipeline: admitted as the chat request it amounts to
// (same pricing, reservation and limits), forwarded natively or translated, and answered as a
// Response with the same charge and usage log as chat.
import { admitChat, completeChat, type Admitted, type ChatCall, type ChatPorts } from "../chat/pipeline.ts";
import { nativeBody, nativeProvider, responsesNames, speaksResponses } from "./native.ts";
import type { ResponsesRequest } from "./request.ts";
import { fromCompletion, fromNative } from "./response.ts";
import { toChatRequest } from "./to-chat.ts";

interface AdmittedResponse {
  /** The chat pipeline's ports, with the provider speaking the Responses API when forwarded natively. */
  ports: ChatPorts;
  admitted: Admitted;
  request: ResponsesRequest;
  native: boolean;
}

/**
 * Prices and reserves a Responses request as the chat request it amounts to; for a provider
 * with the Responses API, what is forwarded is the client's own body (less what the family rejects).
 */
export async function admitResponse(ports: ChatPorts, call: Omit<ChatCall, "request">, request: ResponsesRequest): Promise<AdmittedResponse> {
  const admitted = await admitChat(ports, { ...call, request: toChatRequest(request) });
  if (!speaksResponses(admitted.model)) {
    // Translated: the chat body is sent, but what was left out is named as the client named it.
    const upstream = { ...admitted.upstream, dropped: responsesNames(admitted.upstream.dropped) };
    return { ports, admitted: { ...admitted, upstream }, request, native: false };
  }
  const upstream = nativeBody(request, admitted.model, admitted.priced.ceiling, admitted.upstream.dropped);
  return { ports: { ...ports, provider: nativeProvider(ports.provider) }, admitted: { ...admitted, upstream }, request, native: true };
}

/** Forwards a non-streamed request, charges its usage and answers the Response under `id`. */
export async function completeResponse(admittedResponse: AdmittedResponse, id: string): Promise<Record<string, unknown>> {
  const { ports, admitted, request, native } = admittedResponse;
  const answer = await completeChat(ports, admitted);
  return native ? fromNative(answer.response as Record<string, unknown>, request, { id, model: admitted.model.id }, answer.usage) : fromCompletion(answer, request, id);
}
