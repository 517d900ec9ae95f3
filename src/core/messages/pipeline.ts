// A Messages API request on the chat pipeline: admitted as the chat request it amounts to (same
// pricing, reservation and limits), forwarded natively to a provider with an Anthropic API or
// translated to chat completions for the others, and answered as a Message with the same charge
// and usage log as chat.
import type { Model, Provider } from "../catalog.ts";
import { admitChat, completeChat, type Admitted, type ChatCall, type ChatPorts } from "../chat/pipeline.ts";
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
  /** The chat pipeline's ports, with the provider speaking Anthropic's API when forwarded natively. */
  ports: ChatPorts;
  admitted: Admitted;
  native: boolean;
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
 * default: a `claude-*` name that the catalog does not serve is Anthropic's 404, so that the
 * client says "model not found" rather than "invalid request". Other unknown names are the chat
 * pipeline's 400.
 */
async function requestedModel(ports: ChatPorts, id: string): Promise<Model | null> {
  const model = await ports.findModel(id);
  if (model?.enabled) return model;
  if (id.startsWith("claude")) throw new AppError("not_found", `The model \`${id}\` does not exist or is not enabled`);
  return null;
}

/**
 * Prices and reserves a Messages request as the chat request it amounts to; for a provider
 * with an Anthropic API, what is forwarded is the client's own body.
 */
export async function admitMessage(ports: ChatPorts, call: MessagesCall, request: MessagesRequest): Promise<AdmittedMessage> {
  const model = await requestedModel(ports, request.model);
  const native = model !== null && call.native.has(model.provider);
  const translation = toChatRequest(request, model?.provider ?? "openai", call.seal);
  const admitted = await admitChat(ports, { ...call, request: translation.request });
  if (!native) {
    // Translated: the chat body is sent, and what was left out is named as the client named it.
    const dropped = [...translation.dropped, ...admitted.upstream.dropped.map((name) => MESSAGES_NAME[name] ?? name)];
    return { ports, admitted: { ...admitted, upstream: { ...admitted.upstream, dropped } }, native, seal: call.seal };
  }
  const upstream = nativeBody(request, admitted.model, admitted.priced.ceiling);
  return { ports: { ...ports, provider: nativeProvider(ports.provider) }, admitted: { ...admitted, upstream }, native, seal: call.seal };
}

/** Forwards a non-streamed request, charges its usage and answers the Message. */
export async function completeMessage({ ports, admitted, native, seal }: AdmittedMessage): Promise<Record<string, unknown>> {
  const answer = await completeChat(ports, admitted);
  return native ? fromNative(answer.message as Record<string, unknown>, admitted.model.id, answer.usage) : fromCompletion(answer, admitted.model.id, seal);
}
