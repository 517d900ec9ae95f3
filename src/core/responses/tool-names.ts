// Client-run tools translated to chat completions and their calls written back (tools.ts):
// chat providers know only function tools, so a `custom` tool becomes a function taking one
// string (`{"input": "…"}`), a `namespace`'s tools become functions named by the namespace and
// their own name, and a call of one of them comes back as OpenAI answers it: a
// `custom_tool_call` with its `input`, or a `function_call` with the tool's own `name` and its
// `namespace`.
import { sha256Hex } from "../crypto.ts";

type Fields = Record<string, unknown>;

export interface NamedTool {
  name: string;
  namespace?: string;
  /** A freeform tool: its calls carry `input` text, not JSON arguments. */
  custom: boolean;
}

// Chat providers take function names of at most 64 characters from this alphabet (OpenAI's rule).
const FUNCTION_NAME_MAX = 64;
const outsideAlphabet = /[^A-Za-z0-9_-]/g;

/** The function name a tool goes by in chat: its namespace and its own name joined, within chat's alphabet and length. */
export function chatName(name: string, namespace?: string): string {
  const joined = (namespace === undefined ? name : namespace.endsWith("_") ? `${namespace}${name}` : `${namespace}__${name}`).replace(outsideAlphabet, "_");
  if (joined.length <= FUNCTION_NAME_MAX) return joined;
  // Too long: cut, and told apart from other cut names by a digest of the whole.
  return `${joined.slice(0, FUNCTION_NAME_MAX - 9)}_${sha256Hex(joined).slice(0, 8)}`;
}

const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** A custom tool as a chat function: one string, with the grammar it must follow said in words. */
function customAsFunction(tool: Fields, namespace?: string): Fields {
  const format = (tool.format ?? {}) as Fields;
  const grammar = format.type === "grammar" ? `\n\nThe input must follow this ${str(format.syntax) || "grammar"} grammar:\n${str(format.definition)}` : "";
  const description = `${str(tool.description)}${grammar}`.trim();
  return {
    type: "function",
    function: {
      name: chatName(String(tool.name), namespace),
      ...(description ? { description } : {}),
      parameters: { type: "object", properties: { input: { type: "string", description: "The tool's input, as freeform text" } }, required: ["input"] },
    },
  };
}

function functionAsChat(tool: Fields, namespace?: string): Fields {
  const { type: _type, name, ...fn } = tool;
  const defined = Object.fromEntries(Object.entries(fn).filter(([, v]) => v !== undefined && v !== null));
  return { type: "function", function: { name: chatName(String(name), namespace), ...defined } };
}

/** A request's client-run tools by their chat names, and those tools as chat functions. */
export class ChatTools {
  readonly functions: Fields[] = [];
  private readonly byChatName = new Map<string, NamedTool>();

  constructor(tools: readonly Fields[]) {
    for (const tool of tools) {
      if (tool.type === "namespace") for (const inner of (tool.tools as Fields[]) ?? []) this.add(inner, String(tool.name));
      else if (tool.type === "function" || tool.type === "custom") this.add(tool);
    }
  }

  private add(tool: Fields, namespace?: string): void {
    const custom = tool.type === "custom";
    this.functions.push(custom ? customAsFunction(tool, namespace) : functionAsChat(tool, namespace));
    this.byChatName.set(chatName(String(tool.name), namespace), { name: String(tool.name), custom, ...(namespace === undefined ? {} : { namespace }) });
  }

  /** The tool a chat call names; a name no tool has stays a plain function's. */
  named(chatName: string): NamedTool {
    return this.byChatName.get(chatName) ?? { name: chatName, custom: false };
  }
}

const cache = new WeakMap<readonly Fields[], ChatTools>();

/** The chat tools of a request's `tools` (made once per request: its translation and its answer both ask). */
export function chatToolsOf(tools: readonly Fields[] | undefined): ChatTools {
  if (!tools) return EMPTY;
  let made = cache.get(tools);
  if (!made) cache.set(tools, (made = new ChatTools(tools)));
  return made;
}

const EMPTY = new ChatTools([]);

/** A custom tool's input from the arguments a chat model wrote for it (its one string, or the text as written). */
export function customInput(chatArguments: string): string {
  try {
    const parsed = JSON.parse(chatArguments) as unknown;
    if (typeof parsed === "object" && parsed !== null && typeof (parsed as Fields).input === "string") return (parsed as Fields).input as string;
  } catch {
    // Not JSON: the model wrote the input itself.
  }
  return chatArguments;
}

/** The id of a call item: OpenAI's prefix for the tool's kind, then `rest`. */
export const callItemId = (tool: NamedTool, rest: string): string => `${tool.custom ? "ctc" : "fc"}_${rest}`;

/** A chat tool call as the Responses item OpenAI writes for that tool. */
export function callItem(id: string, call: { call_id: string; arguments: string }, tool: NamedTool, status: string): Fields {
  const namespace = tool.namespace === undefined ? {} : { namespace: tool.namespace };
  if (tool.custom) return { id, type: "custom_tool_call", status, call_id: call.call_id, ...namespace, name: tool.name, input: customInput(call.arguments) };
  return { id, type: "function_call", status, call_id: call.call_id, ...namespace, name: tool.name, arguments: call.arguments };
}
