// A Messages API request on the chat pipeline: admitted as the chat request it amounts to (same
// pricing, reservation and limits), forwarded natively to a provider with an Anthropic API or
// translated to chat completions for the others, and answered as a Message with the same charge
// and usage log as chat.
import type { Model, Provider } from "../catalog.ts";
import { admitChat, completeChat, type Admitted, type ChatCall, type ChatPorts } from "../chat/pipeline.ts";
import { chatTarget, type Target } from "../chat/target.ts";
import { AppError } from "../errors.ts";
import type { ReasoningSeal } from "../reasoning-seal.ts";
import { nativeBody, nativeProvider } from "./native.ts";
import type { MessagesRequest } from "./request.ts";
import { fromCompletion, fromNative } from "./response.ts";
import { toChatRequest } from "./to-chat.ts";

export interface MessagesCall extends Omit<ChatCall, "request"> {
  /** Providers whose Anthropic API is configured (`<P>_ANTHROPIC_BASE_URL`): forwarded natively. */
  native: ReadonlySet<Provider>;
  /** Seals a translated model's thinking (the blocks' signatures) and opens what comes back. */
  seal: ReasoningSeal;
}

interface AdmittedMessage {
  ports: ChatPorts;
  admitted: Admitted;
  seal: ReasoningSeal;
}

// Where the chat fields a family rejects (families.ts) sit in a Messages body.
const MESSAGES_NAME: Record<string, string> = {
  reasoning_effort: "thinking",
  stop: "stop_sequences",
  user: "metadata.user_id",
  parallel_tool_calls: "tool_choice.disable_parallel_tool_use",
};

/**
 * The catalog model a Messages request names. Claude Code asks for Anthropic's own models by
 * default: a `claude-*` name that the catalog does not serve (and no alias stands for) is
 * Anthropic's 404, so that the client says "model not found" rather than "invalid request".
 * Other unknown names are the chat pipeline's 400.
 */
async function requestedModel(ports: ChatPorts, request: MessagesRequest): Promise<Model | null> {
  const model = await ports.findModel(request.model);
  if (model?.enabled) return model;
  if (request.model.startsWith("claude") && request.models === undefined && (await ports.findAlias(request.model)) === undefined) {
    throw new AppError("not_found", `The model \`${request.model}\` does not exist or is not enabled`);
  }
  return null;
}

/**
 * Prices and reserves a Messages request as the chat request it amounts to. Each candidate whose
 * provider has an Anthropic API is sent the client's own body, the others the chat request made
 * for their provider.
 */
export async function admitMessage(ports: ChatPorts, call: MessagesCall, request: MessagesRequest): Promise<AdmittedMessage> {
  const first = await requestedModel(ports, request);
  const translation = toChatRequest(request, first?.provider ?? "openai", call.seal);
  const aim = (model: Model): Target => {
    const chat = model.provider === first?.provider ? translation : toChatRequest(request, model.provider, call.seal);
    const target = chatTarget(chat.request, model, ports.provider);
    if (!call.native.has(model.provider)) {
      // Translated: the chat body is sent, and what was left out is named as the client named it.
      const dropped = [...chat.dropped, ...target.upstream.dropped.map((name) => MESSAGES_NAME[name] ?? name)];
      return { ...target, upstream: { ...target.upstream, dropped } };
    }
    return { ...target, upstream: nativeBody(request, model, target.ceiling), provider: nativeProvider(ports.provider), native: true };
  };
  const admitted = await admitChat(ports, { ...call, request: translation.request, aim });
  return { ports, admitted, seal: call.seal };
}

/** Forwards a non-streamed request, charges its usage and answers the Message, from the model that served it. */
export async function completeMessage({ ports, admitted, seal }: AdmittedMessage): Promise<Record<string, unknown>> {
  const answer = await completeChat(ports, admitted);
  const { model, native } = admitted.target;
  return native ? fromNative(answer.message as Record<string, unknown>, model.id, answer.usage) : fromCompletion(answer, model.id, seal);
}
