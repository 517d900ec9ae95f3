// Anthropic's Messages API request (docs.claude.com/en/api/messages), as the gateway takes it:
// the documented fields validated by type, what Claude Code sends beyond them accepted
// (`role: "system"` messages, adaptive thinking, `output_config`, `context_management`, tool
// fields such as `defer_loading`), and block types Anthropic adds later let through. A field
// or block the target cannot take is left out later, never refused here.
import { MODELS_RULE, ModelsField, withModels } from "../chat/models-field.ts";
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AppError } from "../errors.ts";

const TEXT_LIMIT = 2_000_000;
const text = T.String({ maxLength: TEXT_LIMIT });
const Block = T.Object({ type: T.String({ minLength: 1, maxLength: 64 }) });

const Message = T.Object({
  role: T.Union([T.Literal("user"), T.Literal("assistant"), T.Literal("system")]),
  content: T.Union([text, T.Array(Block, { maxItems: 1_000 })]),
});

const Tool = T.Object({
  name: T.String({ minLength: 1, maxLength: 128 }),
  type: T.Optional(T.Union([T.String({ maxLength: 64 }), T.Null()])),
  description: T.Optional(T.String({ maxLength: 100_000 })),
  input_schema: T.Optional(T.Object({})),
});

const ToolChoice = T.Object({
  type: T.Union([T.Literal("auto"), T.Literal("any"), T.Literal("tool"), T.Literal("none")]),
  name: T.Optional(T.String({ minLength: 1, maxLength: 128 })),
  disable_parallel_tool_use: T.Optional(T.Boolean()),
});

const Thinking = T.Union([
  T.Object({ type: T.Literal("enabled"), budget_tokens: T.Integer({ minimum: 1, maximum: 200_000 }) }),
  T.Object({ type: T.Literal("disabled") }),
  T.Object({ type: T.Literal("adaptive") }),
]);

const MessagesRequestSchema = T.Object({
  model: T.String({ minLength: 1, maxLength: 128 }),
  models: ModelsField,
  max_tokens: T.Integer({ minimum: 1, maximum: 200_000 }),
  messages: T.Array(Message, { minItems: 1, maxItems: 10_000 }),
  system: T.Optional(T.Union([text, T.Array(Block, { maxItems: 100 })])),
  stop_sequences: T.Optional(T.Array(T.String({ maxLength: 500 }), { maxItems: 16 })),
  stream: T.Optional(T.Boolean()),
  temperature: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  top_p: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  top_k: T.Optional(T.Integer({ minimum: 0 })),
  metadata: T.Optional(T.Object({ user_id: T.Optional(T.Union([T.String({ maxLength: 256 }), T.Null()])) })),
  tools: T.Optional(T.Array(Tool, { maxItems: 512 })),
  tool_choice: T.Optional(ToolChoice),
  thinking: T.Optional(Thinking),
  output_config: T.Optional(T.Object({ effort: T.Optional(T.String({ maxLength: 16 })) })),
  service_tier: T.Optional(T.String({ maxLength: 32 })),
});

export type MessagesRequest = Static<typeof MessagesRequestSchema>;
export type InputMessage = MessagesRequest["messages"][number];
export type ContentBlock = Record<string, unknown> & { type: string };

const RULES: Record<string, string> = {
  model: "must be a non-empty string of at most 128 characters",
  models: MODELS_RULE,
  max_tokens: "must be an integer from 1 to 200000",
  messages: "must be an array of 1 to 10000 messages",
  system: "must be a string or an array of text blocks",
  stop_sequences: "must be an array of at most 16 strings of at most 500 characters",
  stream: "must be a boolean",
  temperature: "must be a number from 0 to 1",
  top_p: "must be a number from 0 to 1",
  top_k: "must be a non-negative integer",
  metadata: "must be an object whose user_id is a string",
  tools: "must be an array of at most 512 tools, each with a name and an input_schema object",
  tool_choice: 'must be {type: "auto" | "any" | "tool" | "none"}, with name for "tool"',
  thinking: 'must be {type: "enabled", budget_tokens} or {type: "disabled" | "adaptive"}',
  output_config: "must be an object",
  service_tier: "must be a string",
  role: 'must be "user" or "assistant"',
  content: "must be a string or an array of content blocks",
};

/** What each known block type must carry; a block of another type passes as it is. */
const BLOCK_FIELDS: Record<string, readonly [field: string, kind: "string" | "object", rule: string][]> = {
  text: [["text", "string", "must be a string"]],
  image: [["source", "object", "must be an object"]],
  document: [["source", "object", "must be an object"]],
  tool_use: [["id", "string", "must be a string"], ["name", "string", "must be a string"], ["input", "object", "must be an object"]],
  tool_result: [["tool_use_id", "string", "must be a string"]],
  thinking: [["thinking", "string", "must be a string"]],
  redacted_thinking: [["data", "string", "must be a string"]],
};

const compiled = TypeCompiler.Compile(MessagesRequestSchema);
const invalid = (message: string) => new AppError("invalid_request_error", message);

/** Names the offending field from TypeBox's JSON pointer, as Anthropic does: `messages.0.role: …`. */
function describe(body: Record<string, unknown>, pointer: string): string {
  const parts = pointer.split("/").slice(1);
  const [top = ""] = parts;
  if (!(top in body)) return `${top}: Field required`;
  const field = [...parts].reverse().find((part) => !/^\d+$/.test(part)) ?? top;
  return `${parts.join(".")}: ${RULES[field] ?? RULES[top] ?? "is invalid"}`;
}

function checkBlocks(blocks: readonly ContentBlock[], at: string): void {
  blocks.forEach((block, index) => {
    for (const [field, kind, rule] of BLOCK_FIELDS[block.type] ?? []) {
      const value = block[field];
      const ok = kind === "string" ? typeof value === "string" : typeof value === "object" && value !== null && !Array.isArray(value);
      if (!ok) throw invalid(`${at}.${index}.${field}: ${rule}`);
    }
  });
}

/**
 * A parsed body checked against the Messages API's rules and typed, or a 400
 * `invalid_request_error` naming the field (nothing has been reserved yet).
 */
export function parseMessagesRequest(value: unknown): MessagesRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid("Request body must be a JSON object");
  const body = withModels(value as Record<string, unknown>);
  if (!compiled.Check(body)) throw invalid(describe(body as Record<string, unknown>, compiled.Errors(body).First()?.path ?? ""));
  const request = body as MessagesRequest;
  request.messages.forEach((message, index) => {
    if (typeof message.content !== "string") checkBlocks(message.content as ContentBlock[], `messages.${index}.content`);
  });
  if (Array.isArray(request.system)) checkBlocks(request.system as ContentBlock[], "system");
  if (request.tool_choice?.type === "tool" && !request.tool_choice.name) throw invalid("tool_choice.name: Field required");
  // A custom tool (no type, or `custom`) is the client's own, described by its schema, as Anthropic requires;
  // Anthropic's server tools (`web_search_…` and the like) carry a type and no schema.
  request.tools?.forEach((tool, index) => {
    if ((tool.type == null || tool.type === "custom") && tool.input_schema === undefined) throw invalid(`tools.${index}.custom.input_schema: Field required`);
  });
  return request;
}

/** `count_tokens` takes the same request without `max_tokens`. */
export function parseCountTokensRequest(body: unknown): MessagesRequest {
  const withCeiling = typeof body === "object" && body !== null && !Array.isArray(body) ? { max_tokens: 1, ...body } : body;
  return parseMessagesRequest(withCeiling);
}
