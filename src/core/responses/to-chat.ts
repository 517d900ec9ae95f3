// A Responses request as the chat request it amounts to: what the pipeline prices, reserves and,
// for providers without the Responses API, forwards. Mapping per OpenAI's migration guide
// (platform.openai.com/docs/guides/migrate-to-responses).
import type { ChatRequest } from "../chat/request.ts";
import type { ReasoningSeal } from "../reasoning-seal.ts";
import { KNOWN_ITEM_TYPES, type InputItem, type ResponsesRequest } from "./request.ts";
import { chatName, chatToolsOf } from "./tool-names.ts";
import { clientTool, droppedToolName } from "./tools.ts";

type ChatMessage = ChatRequest["messages"][number];
type Fields = Record<string, unknown>;
type Part = Extract<InputItem, { role: string }>["content"];
// An item of a known type (the schema's catch-all for other types keeps `type` a plain string).
type Of<K extends string> = Extract<InputItem, { type: K }>;

/** Content parts in chat's dialect: text as text, images as image_url. */
function chatParts(content: Part): string | Fields[] {
  if (typeof content === "string") return content;
  return content.map((part): Fields => {
    if (part.type === "input_image") return { type: "image_url", image_url: { url: part.image_url ?? part.file_id ?? "", ...(part.detail ? { detail: part.detail } : {}) } };
    return { type: "text", text: part.type === "refusal" ? part.refusal : part.text };
  });
}

/** An assistant's text as one string (chat providers take assistant content as text). */
const joinedText = (content: Part): string =>
  typeof content === "string" ? content : content.map((p) => (p.type === "refusal" ? p.refusal : "text" in p ? p.text : "")).join("");

/** A call item as a chat tool call: a custom tool's input as its one string argument. */
function toolCall(item: Of<"function_call" | "custom_tool_call">): Fields {
  const args = item.type === "custom_tool_call" ? JSON.stringify({ input: item.input }) : item.arguments;
  return { id: item.call_id, type: "function", function: { name: chatName(item.name, item.namespace), arguments: args } };
}

/**
 * The input items as chat messages; consecutive calls become one assistant message's
 * tool_calls. A reasoning item the gateway sealed gives its text to the assistant message that
 * follows it (`reasoning_content`, which DeepSeek's thinking mode wants back with tool calls);
 * any other reasoning item is left out, as are items of types chat has no place for (named).
 */
function chatMessages(request: Pick<ResponsesRequest, "input" | "instructions">, seal: ReasoningSeal, dropped: Set<string>): ChatMessage[] {
  const messages: ChatMessage[] = request.instructions ? [{ role: "system", content: request.instructions }] : [];
  const items: InputItem[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input;
  let reasoning: string | null = null;
  const assistant = (message: ChatMessage): ChatMessage => {
    if (reasoning !== null) (message as Fields).reasoning_content = reasoning;
    reasoning = null;
    return message;
  };
  for (const item of items) {
    // By `type` first: an item is what its type says, whatever other fields it carries.
    if (item.type === "function_call" || item.type === "custom_tool_call") {
      const call = toolCall(item as Of<"function_call" | "custom_tool_call">);
      const last = messages.at(-1);
      if (last?.role === "assistant" && reasoning === null) last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push(assistant({ role: "assistant", content: null, tool_calls: [call] }));
    } else if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
      const output = item as Of<"function_call_output" | "custom_tool_call_output">;
      messages.push({ role: "tool", tool_call_id: output.call_id, content: joinedText(output.output) });
    } else if (item.type === "reasoning") {
      const text = seal.open((item as Of<"reasoning">).encrypted_content);
      if (text !== null) reasoning = (reasoning ?? "") + text;
    } else if (item.type !== undefined && item.type !== "message") {
      // References were resolved before translation (stored.ts); other types are a provider's own.
      if (item.type !== "item_reference" && !KNOWN_ITEM_TYPES.includes(item.type)) dropped.add(`input.${item.type}`);
    } else {
      const message = item as Extract<InputItem, { role: string }>;
      if (message.role === "assistant") messages.push(assistant({ role: "assistant", content: joinedText(message.content) }));
      else messages.push({ role: message.role, content: chatParts(message.content) } as ChatMessage);
    }
  }
  return messages;
}

/** `text.format` as chat's `response_format`. */
function responseFormat(format: NonNullable<ResponsesRequest["text"]>["format"]): ChatRequest["response_format"] {
  if (!format) return undefined;
  if (format.type !== "json_schema") return { type: format.type } as ChatRequest["response_format"];
  const { type: _type, ...schema } = format;
  return { type: "json_schema", json_schema: schema } as ChatRequest["response_format"];
}

const defined = (fields: Fields): Fields => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null));

/** `tool_choice` in chat's terms: a named function or custom tool as its chat function; a provider-run tool's is left out. */
function chatToolChoice(choice: ResponsesRequest["tool_choice"], dropped: Set<string>): ChatRequest["tool_choice"] {
  if (typeof choice !== "object") return choice;
  if ((choice.type === "function" || choice.type === "custom") && choice.name) return { type: "function", function: { name: chatName(choice.name) } };
  dropped.add("tool_choice");
  return undefined;
}

export interface ChatTranslation {
  request: ChatRequest;
  /** What chat completions have no place for, in the Responses API's names. */
  dropped: string[];
}

/** The chat request a Responses request amounts to (its fields under chat's names, its items as messages). */
export function toChatRequest(request: ResponsesRequest, seal: ReasoningSeal): ChatTranslation {
  const dropped = new Set<string>();
  const messages = chatMessages(request, seal, dropped);
  for (const tool of request.tools ?? []) if (!clientTool(tool.type)) dropped.add(droppedToolName(tool));
  const tools = chatToolsOf(request.tools).functions;
  // A choice among no tools (all of them the provider's own) is one chat providers refuse.
  if (tools.length === 0 && request.tool_choice != null && request.tools !== undefined) dropped.add("tool_choice");
  const chat = defined({
    model: request.model,
    models: request.models,
    messages,
    stream: request.stream ?? undefined,
    max_completion_tokens: request.max_output_tokens,
    temperature: request.temperature,
    top_p: request.top_p,
    tools: tools.length > 0 ? tools : undefined,
    tool_choice: tools.length > 0 ? chatToolChoice(request.tool_choice, dropped) : undefined,
    response_format: responseFormat(request.text?.format),
    verbosity: request.text?.verbosity,
    reasoning_effort: request.reasoning?.effort,
    parallel_tool_calls: request.parallel_tool_calls,
    metadata: request.metadata,
    user: request.user,
    safety_identifier: request.safety_identifier,
    prompt_cache_key: request.prompt_cache_key,
    service_tier: request.service_tier,
  }) as ChatRequest;
  return { request: chat, dropped: [...dropped] };
}
