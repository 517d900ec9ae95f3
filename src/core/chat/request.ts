import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AppError } from "../errors.ts";
import { MODELS_RULE, ModelsField, withModels } from "./models-field.ts";
import { FORWARDABLE_PARAMS, OPENAI_PARAMS, openAiParamProperties } from "./params.ts";

// The spec's chat request and message tables as a TypeBox schema, with OpenAI's other documented
// parameters (params.ts). Unknown fields are allowed (SDKs send extras) but never forwarded:
// only the fields below reach a provider.

const MAX_TOKENS = T.Integer({ minimum: 1, maximum: 200_000 });

const Message = T.Object({
  role: T.Union([T.Literal("developer"), T.Literal("system"), T.Literal("user"), T.Literal("assistant"), T.Literal("tool")]),
  content: T.Optional(
    T.Union([T.String({ maxLength: 200_000 }), T.Array(T.Object({}), { maxItems: 50 }), T.Null()]),
  ),
  name: T.Optional(T.String({ maxLength: 64 })),
  tool_call_id: T.Optional(T.String({ maxLength: 256 })),
  tool_calls: T.Optional(T.Array(T.Unknown())),
});

const Tool = T.Union([
  T.Object({
    type: T.Literal("function"),
    function: T.Object({
      name: T.String({ minLength: 1, maxLength: 64 }),
      description: T.Optional(T.String()),
      parameters: T.Optional(T.Object({})),
      strict: T.Optional(T.Union([T.Boolean(), T.Null()])),
    }),
  }),
  // OpenAI's free-form tools: the model answers with text (optionally held to a grammar).
  T.Object({
    type: T.Literal("custom"),
    custom: T.Object({
      name: T.String({ minLength: 1, maxLength: 64 }),
      description: T.Optional(T.String()),
      format: T.Optional(T.Object({})),
    }),
  }),
  // Any other type (a provider-run tool, a later addition) never fails a request: it is left out and named (families.ts).
  T.Object({ type: T.String({ minLength: 1, maxLength: 64, pattern: "^(?!(function|custom)$)" }) }),
]);

const ResponseFormat = T.Union([
  T.Object({ type: T.Literal("text") }),
  T.Object({ type: T.Literal("json_object") }),
  T.Object({
    type: T.Literal("json_schema"),
    json_schema: T.Object({ name: T.String({ minLength: 1 }), schema: T.Object({}) }),
  }),
]);

const ChatRequestSchema = T.Object({
  model: T.String({ minLength: 1, maxLength: 128 }),
  models: ModelsField,
  messages: T.Array(Message, { minItems: 1, maxItems: 100 }),
  stream: T.Optional(T.Boolean()),
  max_tokens: T.Optional(MAX_TOKENS),
  max_completion_tokens: T.Optional(MAX_TOKENS),
  temperature: T.Optional(T.Number({ minimum: 0, maximum: 2 })),
  top_p: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  frequency_penalty: T.Optional(T.Number({ minimum: -2, maximum: 2 })),
  presence_penalty: T.Optional(T.Number({ minimum: -2, maximum: 2 })),
  stop: T.Optional(
    T.Union([T.String({ maxLength: 500 }), T.Array(T.String({ maxLength: 500 }), { maxItems: 4 })]),
  ),
  tools: T.Optional(T.Array(Tool, { maxItems: 64 })),
  tool_choice: T.Optional(T.Union([T.String(), T.Object({})])),
  response_format: T.Optional(ResponseFormat),
  seed: T.Optional(T.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 })),
  ...openAiParamProperties(),
});

export type ChatRequest = Static<typeof ChatRequestSchema>;

/** The fields a provider receives; everything else in the body stays at the gateway. */
export const FORWARDED_FIELDS = [
  "messages", "temperature", "top_p", "frequency_penalty", "presence_penalty", "stop", "tools", "tool_choice",
  "response_format", "seed", ...FORWARDABLE_PARAMS,
] as const satisfies readonly (keyof ChatRequest)[];

const TOOLS_LIMIT_BYTES = 65_536;
const RESPONSE_FORMAT_LIMIT_BYTES = 32_768;

const compiled = TypeCompiler.Compile(ChatRequestSchema);
const utf8Length = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), "utf8");

/**
 * Checks a parsed body against the spec's request rules and returns it typed, or throws a 400
 * `invalid_request_error` whose message names the offending field.
 */
export function parseChatRequest(value: unknown): ChatRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AppError("invalid_request_error", "Request body must be a JSON object");
  }
  const body = withModels(value as Record<string, unknown>);
  if (!compiled.Check(body)) {
    const pointer = compiled.Errors(body).First()?.path ?? "";
    throw new AppError("invalid_request_error", `Invalid request: ${describe(body as Record<string, unknown>, pointer)}`);
  }
  if (body.tools !== undefined && utf8Length(body.tools) > TOOLS_LIMIT_BYTES) {
    throw new AppError("invalid_request_error", `Invalid request: tools exceed ${TOOLS_LIMIT_BYTES} bytes when serialized`);
  }
  if (body.response_format !== undefined && utf8Length(body.response_format) > RESPONSE_FORMAT_LIMIT_BYTES) {
    throw new AppError(
      "invalid_request_error",
      `Invalid request: response_format exceeds ${RESPONSE_FORMAT_LIMIT_BYTES} bytes when serialized`,
    );
  }
  return body;
}

const RULES: Record<string, string> = {
  model: "must be a non-empty string of at most 128 characters",
  models: MODELS_RULE,
  messages: "must be an array of 1 to 100 message objects",
  stream: "must be a boolean",
  max_tokens: "must be an integer from 1 to 200000",
  max_completion_tokens: "must be an integer from 1 to 200000",
  temperature: "must be a number from 0 to 2",
  top_p: "must be a number from 0 to 1",
  frequency_penalty: "must be a number from -2 to 2",
  presence_penalty: "must be a number from -2 to 2",
  stop: "must be a string or an array of at most 4 strings of at most 500 characters",
  tools: "must be an array of at most 64 tools, each {type: \"function\", function: {name, description, parameters}}, {type: \"custom\", custom: {name, description, format}} or another type",
  tool_choice: "must be a string or an object",
  response_format: "must be {type: \"text\" | \"json_object\" | \"json_schema\"}; json_schema needs json_schema.name and json_schema.schema",
  seed: "must be a signed 32-bit integer",
  role: "must be one of developer, system, user, assistant, tool",
  content: "must be a string of at most 200000 characters, an array of at most 50 objects, or null",
  name: "must be a string of at most 64 characters",
  tool_call_id: "must be a string of at most 256 characters",
  tool_calls: "must be an array",
  ...Object.fromEntries(Object.entries(OPENAI_PARAMS).map(([name, p]) => [name, p.rule])),
};

/** Names the offending field from TypeBox's JSON pointer: a top-level field, or a field of one message. */
function describe(body: Record<string, unknown>, pointer: string): string {
  const [top = "", index, field] = pointer.split("/").slice(1);
  if (top === "messages" && index !== undefined) {
    if (field === undefined) return `messages[${index}] must be a message object`;
    return `messages[${index}].${field} ${RULES[field] ?? "is invalid"}`;
  }
  if (!(top in body)) return `${top} is required`;
  return `${top} ${RULES[top] ?? "is invalid"}`;
}
