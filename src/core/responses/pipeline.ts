// A Responses API request on the chat pipeline: admitted as the chat request it amounts to
// (same pricing, reservation and limits), forwarded natively or translated, and answered as a
// Response with the same charge and usage log as chat.
import type { Model } from "../catalog.ts";
import { takesReasoningBack, withoutReasoningBack } from "../chat/families.ts";
import { admitChat, completeChat, type Admitted, type ChatCall, type ChatPorts } from "../chat/pipeline.ts";
import { chatTarget, type Target } from "../chat/target.ts";
import type { ReasoningSeal } from "../reasoning-seal.ts";
import { DEFAULT_MAX_TOOL_CALLS, type HostedTools } from "../chat/hosted-tools.ts";
import type { Nanos } from "../money.ts";
import { nativeBody, nativeProvider, responsesNames, speaksResponses } from "./native.ts";
import type { ResponsesRequest } from "./request.ts";
import { fromCompletion, fromNative } from "./response.ts";
import { toChatRequest } from "./to-chat.ts";

/** What the door is set up with: how reasoning is sealed, and the provider-run tools the operator sells. */
export interface ResponsesSetup {
  seal: ReasoningSeal;
  /** `HOSTED_TOOL_PRICES`: each sold tool's type and USD price per call. */
  toolPrices: ReadonlyMap<string, Nanos>;
}

/**
 * The sold provider-run tools a request offers, when one of the models that may serve it (its
 * `model`, its `models`, or an alias's) speaks the Responses API and so is sent them: their
 * calls are reserved and charged beside the tokens. Looked up only for a request that offers
 * one, so that others cost nothing more.
 */
async function hostedToolsOf(ports: ChatPorts, request: ResponsesRequest, toolPrices: ReadonlyMap<string, Nanos>): Promise<HostedTools | undefined> {
  if (toolPrices.size === 0 || !request.tools) return undefined;
  const offered = new Map(request.tools.flatMap((tool) => (toolPrices.has(tool.type) ? [[tool.type, toolPrices.get(tool.type)!] as const] : [])));
  if (offered.size === 0) return undefined;
  const model = await ports.findModel(request.model);
  const others = request.models ?? (model ? [] : ((await ports.findAlias(request.model)) ?? []));
  const candidates = [model, ...(await Promise.all(others.map((id) => ports.findModel(id))))];
  if (!candidates.some((m) => m?.enabled && speaksResponses(m))) return undefined;
  return { prices: offered, maxCalls: request.max_tool_calls ?? DEFAULT_MAX_TOOL_CALLS };
}

interface AdmittedResponse {
  ports: ChatPorts;
  admitted: Admitted;
  request: ResponsesRequest;
  seal: ReasoningSeal;
}

/**
 * Prices and reserves a Responses request as the chat request it amounts to. Each candidate
 * with the Responses API is sent the client's own body (less what its family rejects), the
 * others the chat request.
 */
export async function admitResponse(ports: ChatPorts, call: Omit<ChatCall, "request">, request: ResponsesRequest, setup: ResponsesSetup): Promise<AdmittedResponse> {
  const translation = toChatRequest(request, setup.seal);
  const hostedTools = await hostedToolsOf(ports, request, setup.toolPrices);
  const aim = (model: Model): Target => {
    const chat = chatTarget(translation.request, model, ports.provider);
    if (!speaksResponses(model)) {
      // Translated: the chat body is sent, but what was left out is named as the client named it.
      const dropped = [...translation.dropped, ...responsesNames(chat.upstream.dropped)];
      const body = takesReasoningBack(model.provider) ? chat.upstream.body : withoutReasoningBack(chat.upstream.body);
      return { ...chat, upstream: { body, dropped } };
    }
    const upstream = nativeBody(request, model, chat.ceiling, chat.upstream.dropped, setup.toolPrices, hostedTools);
    return { ...chat, upstream, provider: nativeProvider(ports.provider), native: true };
  };
  const admitted = await admitChat(ports, { ...call, request: translation.request, hostedTools, aim });
  return { ports, admitted, request, seal: setup.seal };
}

/** Forwards a non-streamed request, charges its usage and answers the Response under `id`, from the model that served it. */
export async function completeResponse(admittedResponse: AdmittedResponse, id: string): Promise<Record<string, unknown>> {
  const { ports, admitted, request, seal } = admittedResponse;
  const answer = await completeChat(ports, admitted);
  const { model, native } = admitted.target;
  return native ? fromNative(answer.response as Record<string, unknown>, request, { id, model: model.id }, answer.usage) : fromCompletion(answer, request, id, seal);
}
