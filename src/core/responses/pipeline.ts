// A Responses API request on the chat pipeline: admitted as the chat request it amounts to
// (same pricing, reservation and limits), forwarded natively or translated, and answered as a
// Response with the same charge and usage log as chat.
import { takesReasoningBack, withoutReasoningBack } from "../chat/families.ts";
import { admitChat, completeChat, type Admitted, type ChatCall, type ChatPorts } from "../chat/pipeline.ts";
import type { ReasoningSeal } from "../reasoning-seal.ts";
import { nativeBody, nativeProvider, responsesNames, speaksResponses } from "./native.ts";
import type { ResponsesRequest } from "./request.ts";
import { fromCompletion, fromNative } from "./response.ts";
import { toChatRequest } from "./to-chat.ts";

/** What the door is set up with: how reasoning is sealed, and the provider-run tools the operator sells. */
export interface ResponsesSetup {
  seal: ReasoningSeal;
  soldTools: ReadonlySet<string>;
}

interface AdmittedResponse {
  /** The chat pipeline's ports, with the provider speaking the Responses API when forwarded natively. */
  ports: ChatPorts;
  admitted: Admitted;
  request: ResponsesRequest;
  native: boolean;
  seal: ReasoningSeal;
}

/**
 * Prices and reserves a Responses request as the chat request it amounts to; for a provider
 * with the Responses API, what is forwarded is the client's own body (less what the family rejects).
 */
export async function admitResponse(ports: ChatPorts, call: Omit<ChatCall, "request">, request: ResponsesRequest, setup: ResponsesSetup): Promise<AdmittedResponse> {
  const translation = toChatRequest(request, setup.seal);
  const admitted = await admitChat(ports, { ...call, request: translation.request });
  const { seal } = setup;
  if (!speaksResponses(admitted.model)) {
    // Translated: the chat body is sent, but what was left out is named as the client named it.
    const dropped = [...translation.dropped, ...responsesNames(admitted.upstream.dropped)];
    const body = takesReasoningBack(admitted.model.provider) ? admitted.upstream.body : withoutReasoningBack(admitted.upstream.body);
    return { ports, admitted: { ...admitted, upstream: { body, dropped } }, request, native: false, seal };
  }
  const upstream = nativeBody(request, admitted.model, admitted.priced.ceiling, admitted.upstream.dropped, setup.soldTools);
  return { ports: { ...ports, provider: nativeProvider(ports.provider) }, admitted: { ...admitted, upstream }, request, native: true, seal };
}

/** Forwards a non-streamed request, charges its usage and answers the Response under `id`. */
export async function completeResponse(admittedResponse: AdmittedResponse, id: string): Promise<Record<string, unknown>> {
  const { ports, admitted, request, native, seal } = admittedResponse;
  const answer = await completeChat(ports, admitted);
  return native ? fromNative(answer.response as Record<string, unknown>, request, { id, model: admitted.model.id }, answer.usage) : fromCompletion(answer, request, id, seal);
}
