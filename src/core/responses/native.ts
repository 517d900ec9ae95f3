// Forwarding to providers that have the Responses API themselves (OpenAI:
// platform.openai.com/docs/api-reference/responses; xAI: docs.x.ai, "Responses API"). The body
// is the client's, stateless (`store: false`); answers and events come back wrapped as chat
// completions and chunks, so that the chat pipeline settles them as it settles chat.
import type { Model, Provider } from "../catalog.ts";
import { AppError } from "../errors.ts";
import type { UpstreamRequest } from "../chat/families.ts";
import { speaking } from "../chat/other-api.ts";
import type { ChatProvider } from "../chat/provider.ts";
import type { ResponsesRequest } from "./request.ts";
import { chatUsageOf } from "./response.ts";
import { nativeTools } from "./tools.ts";
import type { HostedTools } from "../chat/hosted-tools.ts";
import { sealedByGateway } from "../reasoning-seal.ts";

type Fields = Record<string, unknown>;

// OpenAI's reasoning models, whose reasoning items a stateless request must carry back encrypted
// (platform.openai.com/docs/guides/reasoning, "Encrypted reasoning items").
const REASONS_ENCRYPTED = /^(o\d|gpt-5)/;

/**
 * The conversation as a provider's Responses API takes it: a reasoning item it did not write
 * (a translated provider's, sealed by the gateway or bare) cannot be sent back, and is left out.
 */
const nativeInput = (input: ResponsesRequest["input"]): ResponsesRequest["input"] =>
  typeof input === "string" ? input : input.filter((item) => item.type !== "reasoning" || nativeReasoning((item as { encrypted_content?: unknown }).encrypted_content));

const nativeReasoning = (encrypted: unknown): boolean => typeof encrypted === "string" && !sealedByGateway(encrypted);

/** Providers whose API reference documents `POST /v1/responses`. */
const NATIVE: readonly Provider[] = ["openai", "xai"];

/** Whether requests for `model` are forwarded to its provider's own Responses API. */
export const speaksResponses = (model: Model): boolean => NATIVE.includes(model.provider);

/** The Responses fields forwarded natively, beside model, input, the ceiling, stream and store. */
const FORWARDED = [
  "instructions", "tools", "tool_choice", "temperature", "top_p", "text", "reasoning", "parallel_tool_calls", "metadata", "user",
  "safety_identifier", "prompt_cache_key", "service_tier", "include", "max_tool_calls",
] as const satisfies readonly (keyof ResponsesRequest)[];

// Where the chat fields a family rejects (families.ts) sit in a Responses body.
const RESPONSES_NAME: Record<string, string> = { reasoning_effort: "reasoning", verbosity: "text.verbosity", response_format: "text.format" };

/** Chat field names as the Responses API names them, for `x-gateway-dropped-params`. */
export const responsesNames = (chatNames: readonly string[]): string[] => chatNames.map((name) => RESPONSES_NAME[name] ?? name);

/**
 * The native body: the client's forwarded fields less those the model's family rejects
 * (`chatDropped`, in chat's names), the provider's model name, the ceiling, and `store: false`.
 */
export function nativeBody(request: ResponsesRequest, model: Model, ceiling: number, chatDropped: readonly string[], soldTools: { has(type: string): boolean }, hostedTools?: HostedTools): UpstreamRequest {
  const dropped = responsesNames(chatDropped);
  const body: Fields = { model: model.upstreamModel, input: nativeInput(request.input) };
  for (const field of FORWARDED) {
    if (request[field] === undefined || dropped.includes(field)) continue;
    body[field] = request[field];
  }
  if (request.tools) {
    // Every tool as sent, but those the provider runs and the operator does not sell.
    const tools = nativeTools(request.tools, soldTools);
    body.tools = tools.kept;
    dropped.push(...tools.dropped);
  }
  // `text.verbosity` and `text.format` are left out of `text`, not with it.
  const textDropped = dropped.filter((name) => name.startsWith("text.")).map((name) => name.slice("text.".length));
  if (request.text && textDropped.length > 0) body.text = Object.fromEntries(Object.entries(request.text).filter(([key]) => !textDropped.includes(key)));
  body.max_output_tokens = ceiling;
  if (hostedTools) body.max_tool_calls = hostedTools.maxCalls;
  // The gateway keeps the state (stored.ts): nothing is kept at the provider, and a reasoning
  // model's reasoning comes back encrypted, to be sent again with the next turn.
  body.store = false;
  if (REASONS_ENCRYPTED.test(model.upstreamModel) && model.provider === "openai") {
    body.include = [...new Set([...((body.include as string[] | undefined) ?? []), "reasoning.encrypted_content"])];
  }
  if (request.stream) body.stream = true;
  return { body, dropped };
}

/** A native Response wrapped as a chat completion: its usage in chat's names, the Response beside it. */
function wrapAnswer(answer: unknown): unknown {
  // Anything else is not a Response: the pipeline answers it as a malformed answer (502).
  if (typeof answer !== "object" || answer === null || (answer as Fields).object !== "response") return undefined;
  const native = answer as Fields;
  return { id: native.id, created: native.created_at, choices: [], usage: chatUsageOf(native.usage, native.output), response: native };
}

/** Terminal events that carry the usage to charge. */
const FINISHED = new Set(["response.completed", "response.incomplete"]);

/** One native event wrapped as a chat chunk; the terminal one is the final chunk, with the usage. */
function wrapEvent(data: string): string {
  const event = JSON.parse(data) as Fields;
  if (event.type === "response.failed" || event.type === "error") throw new AppError("provider_error", "Upstream provider request failed");
  if (FINISHED.has(String(event.type))) {
    const response = (event.response ?? {}) as Fields;
    const usage = chatUsageOf(response.usage, response.output);
    return JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage, event });
  }
  return JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: null }], event });
}

/** `inner`, calling the provider's Responses API and answering in the chat pipeline's terms. */
export const nativeProvider = (inner: ChatProvider): ChatProvider =>
  speaking(inner, { endpoint: "/responses", wrapAnswer, eventWrapper: () => wrapEvent });
