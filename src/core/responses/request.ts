// OpenAI's Responses API request (platform.openai.com/docs/api-reference/responses/create), the
// part the gateway serves (its state kept by stored.ts), as a TypeBox schema with limits analogous to the chat
// request's (docs/decisions.md, "Responses API"). Unknown fields are allowed and not forwarded.
import { MODELS_RULE, ModelsField, withModels } from "../chat/models-field.ts";
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AppError } from "../errors.ts";
import { OPENAI_PARAMS } from "../chat/params.ts";
import { checkTools } from "./tools.ts";

// Agents resend whole sessions (Codex with `store: false`): the door's body limit bounds them, as on /v1/messages.
const TEXT_LIMIT = 2_000_000;
const text = T.String({ maxLength: TEXT_LIMIT });
const oneOf = (...values: string[]) => T.Union(values.map((v) => T.Literal(v)));

const Part = T.Union([
  T.Object({ type: T.Union([T.Literal("input_text"), T.Literal("output_text")]), text }),
  T.Object({ type: T.Literal("input_image"), image_url: T.Optional(T.String()), file_id: T.Optional(T.String()), detail: T.Optional(T.String()) }),
  T.Object({ type: T.Literal("refusal"), refusal: text }),
]);

const Message = T.Object({
  type: T.Optional(T.Literal("message")),
  role: T.Union([T.Literal("user"), T.Literal("assistant"), T.Literal("system"), T.Literal("developer")]),
  content: T.Union([text, T.Array(Part, { maxItems: 50 })]),
});

const callId = T.String({ minLength: 1, maxLength: 256 });
const toolName = T.String({ minLength: 1, maxLength: 128 });
const namespace = T.Optional(toolName);

// A call of a function tool, of one inside a `namespace` tool (`namespace` names it), or of a freeform `custom` tool.
const FunctionCall = T.Object({ type: T.Literal("function_call"), call_id: callId, namespace, name: toolName, arguments: text });
const CustomToolCall = T.Object({ type: T.Literal("custom_tool_call"), call_id: callId, namespace, name: toolName, input: text });

const CallOutput = T.Object({
  type: T.Union([T.Literal("function_call_output"), T.Literal("custom_tool_call_output")]),
  call_id: callId,
  output: T.Union([text, T.Array(Part, { maxItems: 50 })]),
});

// Reasoning items that reasoning models return, sent back by SDKs: forwarded natively; when
// translated, the text of one the gateway sealed (`encrypted_content`) is restored, the rest left out.
const Reasoning = T.Object({ type: T.Literal("reasoning"), encrypted_content: T.Optional(T.Union([T.String(), T.Null()])) });

// A stored item of the account's, named by id (stored.ts resolves it).
const ItemReference = T.Object({ type: T.Literal("item_reference"), id: T.String({ minLength: 1, maxLength: 256 }) });

/** The item types the gateway reads; any other (a provider-run tool's call, a later addition) passes as it is. */
export const KNOWN_ITEM_TYPES = ["message", "function_call", "custom_tool_call", "function_call_output", "custom_tool_call_output", "reasoning", "item_reference"];
const OtherItem = T.Object({ type: T.String({ minLength: 1, maxLength: 64, pattern: `^(?!(${KNOWN_ITEM_TYPES.join("|")})$)` }) });

const Item = T.Union([Message, FunctionCall, CustomToolCall, CallOutput, Reasoning, ItemReference, OtherItem]);

const Format = T.Union([
  T.Object({ type: oneOf("text", "json_object") }),
  T.Object({ type: T.Literal("json_schema"), name: T.String({ minLength: 1, maxLength: 64 }), schema: T.Object({}), strict: T.Optional(T.Union([T.Boolean(), T.Null()])), description: T.Optional(T.String()) }),
]);

const MAX_INPUT_ITEMS = 10_000;

const ResponsesRequestSchema = T.Object({
  model: T.String({ minLength: 1, maxLength: 128 }),
  models: ModelsField,
  input: T.Union([text, T.Array(Item, { minItems: 1, maxItems: MAX_INPUT_ITEMS })]),
  instructions: T.Optional(T.Union([text, T.Null()])),
  tools: T.Optional(T.Array(T.Object({ type: T.String({ minLength: 1, maxLength: 64 }) }), { maxItems: 512 })),
  tool_choice: T.Optional(T.Union([oneOf("none", "auto", "required"), T.Object({ type: T.String({ minLength: 1, maxLength: 64 }), name: T.Optional(T.String({ minLength: 1 })) })])),
  max_tool_calls: T.Optional(T.Union([T.Integer({ minimum: 1, maximum: 1_000 }), T.Null()])),
  max_output_tokens: T.Optional(T.Union([T.Integer({ minimum: 1, maximum: 200_000 }), T.Null()])),
  temperature: T.Optional(T.Union([T.Number({ minimum: 0, maximum: 2 }), T.Null()])),
  top_p: T.Optional(T.Union([T.Number({ minimum: 0, maximum: 1 }), T.Null()])),
  text: T.Optional(T.Object({ format: T.Optional(Format), verbosity: T.Optional(oneOf("low", "medium", "high")) })),
  reasoning: T.Optional(T.Union([T.Object({ effort: T.Optional(T.Union([OPENAI_PARAMS.reasoning_effort.schema, T.Null()])), summary: T.Optional(T.Unknown()) }), T.Null()])),
  parallel_tool_calls: T.Optional(T.Union([T.Boolean(), T.Null()])),
  metadata: T.Optional(T.Union([OPENAI_PARAMS.metadata.schema, T.Null()])),
  user: T.Optional(OPENAI_PARAMS.user.schema),
  safety_identifier: T.Optional(OPENAI_PARAMS.safety_identifier.schema),
  prompt_cache_key: T.Optional(OPENAI_PARAMS.prompt_cache_key.schema),
  service_tier: T.Optional(OPENAI_PARAMS.service_tier.schema),
  stream: T.Optional(T.Union([T.Boolean(), T.Null()])),
  store: T.Optional(T.Union([T.Boolean(), T.Null()])),
  previous_response_id: T.Optional(T.Union([T.String({ minLength: 1, maxLength: 256 }), T.Null()])),
  include: T.Optional(T.Union([T.Array(T.String(), { maxItems: 16 }), T.Null()])),
});

export type ResponsesRequest = Static<typeof ResponsesRequestSchema>;
export type InputItem = Static<typeof Item>;

const RULES: Record<string, string> = {
  model: "must be a non-empty string of at most 128 characters",
  models: MODELS_RULE,
  input: `must be a string of at most ${TEXT_LIMIT} characters or an array of 1 to ${MAX_INPUT_ITEMS} items`,
  previous_response_id: "must be a response id (a string of at most 256 characters)",
  instructions: `must be a string of at most ${TEXT_LIMIT} characters`,
  tools: "must be an array of at most 512 tools, each an object with a type",
  tool_choice: "must be none, auto, required or {type, name?}",
  max_tool_calls: "must be an integer from 1 to 1000",
  max_output_tokens: "must be an integer from 1 to 200000",
  temperature: "must be a number from 0 to 2",
  top_p: "must be a number from 0 to 1",
  text: "must be {format?: {type: text | json_object | json_schema}, verbosity?}; json_schema needs name and schema",
  reasoning: "must be {effort?: none | minimal | low | medium | high | xhigh}",
  parallel_tool_calls: "must be a boolean",
  stream: "must be a boolean",
  store: "must be a boolean",
  include: "must be an array of at most 16 strings",
  ...Object.fromEntries((["metadata", "user", "safety_identifier", "prompt_cache_key", "service_tier"] as const).map((p) => [p, OPENAI_PARAMS[p].rule])),
};

const compiled = TypeCompiler.Compile(ResponsesRequestSchema);
const compiledItem = TypeCompiler.Compile(Item);
const TOOLS_LIMIT_BYTES = 1_048_576;
const FORMAT_LIMIT_BYTES = 32_768;
const utf8Length = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), "utf8");
const invalid = (message: string) => new AppError("invalid_request_error", message);

/** Names the offending field from TypeBox's JSON pointer: a top-level field or one input item. */
function describe(body: Record<string, unknown>, pointer: string): string {
  const [top = "", pointed] = pointer.split("/").slice(1);
  // A union reports the array, not the item: find the first item that is none of the kinds.
  const index = top === "input" && Array.isArray(body.input) ? (pointed ?? body.input.findIndex((item) => !compiledItem.Check(item))) : pointed;
  if (top === "input" && index !== undefined && Number(index) >= 0) {
    return `input[${index}] must be a message {role, content} with input_text, output_text or input_image parts, a function_call {call_id, name, arguments}, a custom_tool_call {call_id, name, input}, a function_call_output or custom_tool_call_output {call_id, output}, a reasoning item or an item_reference {id}`;
  }
  if (!(top in body)) return `${top} is required`;
  return `${top} ${RULES[top] ?? "is invalid"}`;
}

/** What the gateway does not offer, said as such rather than done silently. */
function refuseUnoffered(body: ResponsesRequest & { background?: unknown; conversation?: unknown }): void {
  if (body.background === true) throw invalid("background: true is not supported: this gateway answers each request while it is open; leave background out");
  if (body.conversation !== undefined && body.conversation !== null) {
    throw invalid("conversation is not supported: continue a conversation with previous_response_id");
  }
  checkTools(body.tools ?? []);
}

/**
 * Checks a parsed body against the Responses rules the gateway serves and returns it typed, or
 * throws a 400 `invalid_request_error` naming the offending field or the unsupported feature.
 */
export function parseResponsesRequest(value: unknown): ResponsesRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid("Request body must be a JSON object");
  const body = withModels(value as Record<string, unknown>);
  const fields = body as Record<string, unknown>;
  if (!compiled.Check(body)) {
    throw invalid(`Invalid request: ${describe(fields, compiled.Errors(body).First()?.path ?? "")}`);
  }
  refuseUnoffered(body);
  if (body.tools !== undefined && utf8Length(body.tools) > TOOLS_LIMIT_BYTES) {
    throw invalid(`Invalid request: tools exceed ${TOOLS_LIMIT_BYTES} bytes when serialized`);
  }
  if (body.text?.format !== undefined && utf8Length(body.text.format) > FORMAT_LIMIT_BYTES) {
    throw invalid(`Invalid request: text.format exceeds ${FORMAT_LIMIT_BYTES} bytes when serialized`);
  }
  return body;
}
