// A Messages request as the chat request it amounts to: what the pipeline prices and reserves
// and, for providers without an Anthropic API, forwards. The mapping follows Anthropic's
// OpenAI SDK compatibility page (docs.claude.com/en/api/openai-sdk) read backwards: system and
// text blocks as messages, images as image_url parts, tool_use as tool_calls, tool_result as
// `tool` messages, thinking as `reasoning_content`.
import type { Provider } from "../catalog.ts";
import { takesReasoningBack } from "../chat/families.ts";
import type { ChatRequest } from "../chat/request.ts";
import type { ReasoningSeal } from "../reasoning-seal.ts";
import type { ContentBlock, InputMessage, MessagesRequest } from "./request.ts";

type ChatMessage = ChatRequest["messages"][number];
type Fields = Record<string, unknown>;

const blocksOf = (content: InputMessage["content"]): ContentBlock[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : (content as ContentBlock[]);

const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** An image or document block as a chat content part, or null when chat has no place for it. */
function mediaPart(block: ContentBlock): Fields | null {
  const source = block.source as Fields;
  if (source.type === "base64") {
    const data = `data:${str(source.media_type)};base64,${str(source.data)}`;
    if (block.type === "image") return { type: "image_url", image_url: { url: data } };
    return { type: "file", file: { filename: str(block.title) || "document.pdf", file_data: data } };
  }
  if (source.type === "url") return block.type === "image" ? { type: "image_url", image_url: { url: str(source.url) } } : null;
  if (source.type === "text") return { type: "text", text: str(source.data) };
  return null;
}

/** The text of a tool result's content (chat's `tool` messages take text). */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block: Fields) => (block.type === "text" ? str(block.text) : "")).join("");
}

/** A user turn: its tool results as `tool` messages first (chat wants them right after the calls), then the rest. */
function userMessages(blocks: ContentBlock[], dropped: Set<string>): ChatMessage[] {
  const out: ChatMessage[] = [];
  const parts: Fields[] = [];
  for (const block of blocks) {
    if (block.type === "tool_result") {
      const body = resultText(block.content);
      out.push({ role: "tool", tool_call_id: str(block.tool_use_id), content: block.is_error === true ? `Error: ${body}` : body });
    } else if (block.type === "text") parts.push({ type: "text", text: str(block.text) });
    else if (block.type === "image" || block.type === "document") {
      const part = mediaPart(block);
      if (part) parts.push(part);
      else dropped.add(block.type);
    } else if (block.type !== "thinking" && block.type !== "redacted_thinking") dropped.add(block.type);
  }
  if (parts.length > 0) {
    const onlyText = parts.every((p) => p.type === "text");
    out.push({ role: "user", content: onlyText ? parts.map((p) => p.text).join("\n\n") : parts } as ChatMessage);
  }
  return out;
}

/**
 * An assistant turn: text, tool calls and (for providers that take it back) the reasoning of
 * the thinking blocks the gateway wrote, read from their signatures; any other thinking block
 * (a forged one, another deployment's, Anthropic's own) is left out.
 */
function assistantMessage(blocks: ContentBlock[], reasoningBack: ReasoningSeal | null, dropped: Set<string>): ChatMessage {
  let content = "";
  let reasoning = "";
  const calls: Fields[] = [];
  for (const block of blocks) {
    if (block.type === "text") content += str(block.text);
    else if (block.type === "tool_use") calls.push({ id: str(block.id), type: "function", function: { name: str(block.name), arguments: JSON.stringify(block.input) } });
    else if (block.type === "thinking") reasoning += reasoningBack?.open(block.signature) ?? "";
    else if (block.type !== "redacted_thinking") dropped.add(block.type);
  }
  const message: Fields = { role: "assistant", content: content || (calls.length > 0 ? null : "") };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoningBack && reasoning) message.reasoning_content = reasoning;
  return message as ChatMessage;
}

const systemText = (system: MessagesRequest["system"]): string =>
  typeof system === "string" ? system : (system ?? []).map((block) => str((block as Fields).text)).join("\n\n");

function chatMessages(request: MessagesRequest, reasoningBack: ReasoningSeal | null, dropped: Set<string>): ChatMessage[] {
  const system = systemText(request.system);
  const messages: ChatMessage[] = system ? [{ role: "system", content: system }] : [];
  for (const message of request.messages) {
    const blocks = blocksOf(message.content);
    if (message.role === "system") messages.push({ role: "system", content: blocks.map((b) => str(b.text)).join("\n\n") });
    else if (message.role === "user") messages.push(...userMessages(blocks, dropped));
    else messages.push(assistantMessage(blocks, reasoningBack, dropped));
  }
  return messages;
}

/** Custom tools as functions; Anthropic's server tools (typed `web_search_…` and the like) have no chat counterpart. */
function chatTools(tools: MessagesRequest["tools"], dropped: Set<string>): Fields[] | undefined {
  if (!tools) return undefined;
  const functions: Fields[] = [];
  for (const tool of tools) {
    if (tool.type && tool.type !== "custom") {
      dropped.add(`tools.${tool.name}`);
      continue;
    }
    const fn: Fields = { name: tool.name, parameters: tool.input_schema ?? { type: "object", properties: {} } };
    if (tool.description) fn.description = tool.description;
    functions.push({ type: "function", function: fn });
  }
  return functions.length > 0 ? functions : undefined;
}

function toolChoice(choice: MessagesRequest["tool_choice"]): ChatRequest["tool_choice"] {
  if (!choice) return undefined;
  if (choice.type === "any") return "required";
  if (choice.type === "tool") return { type: "function", function: { name: choice.name } };
  return choice.type;
}

/** A thinking budget as an effort: Anthropic's minimum budget is 1,024 tokens, its examples go to 32,000. */
function reasoningEffort(request: MessagesRequest): string | undefined {
  const thinking = request.thinking;
  if (thinking?.type === "enabled") return thinking.budget_tokens < 4_096 ? "low" : thinking.budget_tokens < 16_384 ? "medium" : "high";
  const effort = request.output_config?.effort;
  if (thinking?.type === "adaptive" && (effort === "low" || effort === "medium" || effort === "high")) return effort;
  return undefined;
}

// OpenAI's end-user identifiers are short (`safety_identifier`: at most 64 characters); Claude
// Code's user_id is a JSON document of its own, which is not passed on.
const END_USER_MAX_LENGTH = 64;
function endUser(userId: string | null | undefined, dropped: Set<string>): string | undefined {
  if (!userId) return undefined;
  if (userId.length <= END_USER_MAX_LENGTH) return userId;
  dropped.add("metadata.user_id");
  return undefined;
}

const defined = (fields: Fields): Fields => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null));

export interface ChatTranslation {
  request: ChatRequest;
  /** What the chat request has no place for, in the Messages API's names. */
  dropped: string[];
}

/** The chat request a Messages request amounts to, for a model of `provider`. */
export function toChatRequest(request: MessagesRequest, provider: Provider, seal: ReasoningSeal): ChatTranslation {
  const dropped = new Set<string>();
  const messages = chatMessages(request, takesReasoningBack(provider) ? seal : null, dropped);
  if (request.top_k !== undefined) dropped.add("top_k");
  const stop = request.stop_sequences?.slice(0, 4);
  if ((request.stop_sequences?.length ?? 0) > 4) dropped.add("stop_sequences");
  const chat = defined({
    model: request.model,
    models: request.models,
    messages,
    stream: request.stream,
    max_tokens: request.max_tokens,
    temperature: request.temperature,
    top_p: request.top_p,
    stop: stop && stop.length > 0 ? stop : undefined,
    tools: chatTools(request.tools, dropped),
    tool_choice: toolChoice(request.tool_choice),
    parallel_tool_calls: request.tool_choice?.disable_parallel_tool_use === true ? false : undefined,
    reasoning_effort: reasoningEffort(request),
    user: endUser(request.metadata?.user_id, dropped),
  }) as ChatRequest;
  return { request: chat, dropped: [...dropped] };
}
