// A Responses request as the chat request it amounts to: what the pipeline prices, reserves and,
// for providers without the Responses API, forwards. Mapping per OpenAI's migration guide
// (platform.openai.com/docs/guides/migrate-to-responses).
import type { ChatRequest } from "../chat/request.ts";
import type { InputItem, ResponsesRequest } from "./request.ts";

type ChatMessage = ChatRequest["messages"][number];
type Fields = Record<string, unknown>;
type Part = Extract<InputItem, { role: string }>["content"];

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

/** The input items as chat messages; consecutive function calls become one assistant message's tool_calls. */
function chatMessages(request: Pick<ResponsesRequest, "input" | "instructions">): ChatMessage[] {
  const messages: ChatMessage[] = request.instructions ? [{ role: "system", content: request.instructions }] : [];
  const items: InputItem[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input;
  for (const item of items) {
    // By `type` first: an item is what its type says, whatever other fields it carries.
    if (item.type === "function_call") {
      const call = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      if (last?.role === "assistant") last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
    } else if (item.type === "function_call_output") {
      messages.push({ role: "tool", tool_call_id: item.call_id, content: joinedText(item.output) });
    } else if (item.type !== "reasoning" && item.type !== "item_reference") {
      messages.push({ role: item.role, content: item.role === "assistant" ? joinedText(item.content) : chatParts(item.content) } as ChatMessage);
    }
    // Reasoning items are the Responses API's own: a chat provider has no place for them. References
    // were resolved before translation (stored.ts).
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

/** The chat request a Responses request amounts to (its fields under chat's names, its items as messages). */
export function toChatRequest(request: ResponsesRequest): ChatRequest {
  const toolChoice = request.tool_choice;
  return defined({
    model: request.model,
    messages: chatMessages(request),
    stream: request.stream ?? undefined,
    max_completion_tokens: request.max_output_tokens,
    temperature: request.temperature,
    top_p: request.top_p,
    tools: request.tools?.map(({ type: _type, ...fn }) => ({ type: "function", function: defined(fn) })),
    tool_choice: typeof toolChoice === "object" ? { type: "function", function: { name: toolChoice.name } } : toolChoice,
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
}
