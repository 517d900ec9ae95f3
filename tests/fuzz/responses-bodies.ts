// Responses API bodies for the endpoint fuzzer: valid ones, valid ones with one field or one
// input item's field replaced by anything, and records of anything; and the verdict on each.
import fc from "fast-check";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { speaksResponses } from "../../src/core/responses/native.ts";
import { parseResponsesRequest } from "../../src/core/responses/request.ts";
import { modelsField, namesOnlyCatalogModels, withModelsOnly } from "./models-bodies.ts";

// The fuzzer's provider speaks chat completions only: the translated models are fuzzed here,
// the native ones in tests/integration/responses.*.test.ts.
const TRANSLATED_IDS = FALLBACK_CATALOG.filter((m) => !speaksResponses(m)).map((m) => m.id);

const item = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "assistant", "system", "developer"), content: fc.oneof(fc.string({ maxLength: 100 }), fc.constant([{ type: "input_text", text: "hi" }])) }),
  fc.record({ type: fc.constant("function_call"), call_id: fc.constant("call_1"), name: fc.constant("f"), arguments: fc.constant("{}") }),
  fc.record({ type: fc.constant("function_call_output"), call_id: fc.constant("call_1"), output: fc.string({ maxLength: 50 }) }),
  fc.record({ type: fc.constant("item_reference"), id: fc.string({ minLength: 1, maxLength: 20 }) }),
  fc.record({ type: fc.constant("custom_tool_call"), call_id: fc.constant("call_2"), namespace: fc.constantFrom("ns", "a b"), name: fc.constant("apply_patch"), input: fc.string({ maxLength: 50 }) }, { requiredKeys: ["type", "call_id", "name", "input"] }),
  fc.record({ type: fc.constant("custom_tool_call_output"), call_id: fc.constant("call_2"), output: fc.string({ maxLength: 50 }) }),
  fc.record({ type: fc.constant("reasoning"), summary: fc.constant([]), content: fc.constant(null), encrypted_content: fc.oneof(fc.string({ maxLength: 40 }), fc.constant("gwr1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")) }),
  fc.record({ type: fc.constantFrom("web_search_call", "computer_call_output", "a_later_kind"), id: fc.string({ maxLength: 10 }) }),
);

// Tools of every type: function, freeform custom (with a grammar or not), a namespace, provider-run ones, one of no known type.
const tool = fc.oneof(
  fc.record({ type: fc.constant("function"), name: fc.constantFrom("f", "exec_command"), parameters: fc.constant({ type: "object" }), strict: fc.boolean() }),
  fc.record({ type: fc.constant("custom"), name: fc.constantFrom("apply_patch", "x.y"), format: fc.constantFrom({ type: "text" }, { type: "grammar", syntax: "lark", definition: "start: x" }) }),
  fc.record({ type: fc.constant("namespace"), name: fc.constantFrom("multi_agent_v1", "n s"), tools: fc.constant([{ type: "function", name: "spawn" }, { type: "custom", name: "note" }]) }),
  fc.record({ type: fc.constantFrom("web_search", "file_search", "code_interpreter", "image_generation", "computer_use", "mcp", "local_shell", "tool_search", "a_later_tool") }),
);

const validResponses = fc.record(
  {
    model: fc.constantFrom(...TRANSLATED_IDS),
    input: fc.oneof(fc.string({ maxLength: 200 }), fc.array(item, { minLength: 1, maxLength: 4 })),
    instructions: fc.string({ maxLength: 100 }),
    stream: fc.boolean(),
    max_output_tokens: fc.integer({ min: 1, max: 200_000 }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    tools: fc.array(tool, { maxLength: 5 }),
    tool_choice: fc.constantFrom("auto", "none", "required", { type: "function", name: "f" }, { type: "custom", name: "apply_patch" }, { type: "web_search" }),
    include: fc.constantFrom(["reasoning.encrypted_content"], []),
    prompt_cache_key: fc.string({ maxLength: 40 }),
    client_metadata: fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), { maxKeys: 3 }),
    text: fc.constantFrom({ format: { type: "text" } }, { format: { type: "json_object" } }, { verbosity: "low" }),
    reasoning: fc.constantFrom({ effort: "low" }, { effort: "extreme" }),
    parallel_tool_calls: fc.boolean(),
    metadata: fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), { maxKeys: 3 }),
    user: fc.string({ maxLength: 40 }),
    store: fc.boolean(),
    previous_response_id: fc.oneof(fc.constant("resp_1"), fc.string({ maxLength: 30 })),
  },
  { requiredKeys: ["model", "input"] },
);

const FIELDS = ["model", "models", "input", "instructions", "stream", "max_output_tokens", "temperature", "top_p", "tools", "tool_choice", "text", "reasoning", "metadata", "store", "include", "max_tool_calls", "client_metadata"];

export const responsesRequest = (anyJson: fc.Arbitrary<unknown>) =>
  fc.oneof(
    validResponses,
    fc.tuple(validResponses, modelsField(anyJson)).map(([body, models]) => ({ ...body, models })),
    fc.tuple(validResponses, modelsField(anyJson)).map(([body, models]) => withModelsOnly(body, models)),
    fc.tuple(validResponses, fc.constantFrom(...FIELDS), anyJson).map(([body, field, value]) => ({ ...body, [field]: value })),
    fc.tuple(validResponses, fc.constantFrom("role", "content", "type", "call_id", "output", "input", "namespace", "encrypted_content"), anyJson).map(([body, field, value]) => ({
      ...body,
      input: [{ ...(Array.isArray(body.input) ? body.input[0] : { role: "user", content: "x" }), [field]: value }],
    })),
    fc.tuple(validResponses, fc.constantFrom("type", "name", "tools", "format", "parameters", "execution"), anyJson).map(([body, field, value]) => ({
      ...body,
      tools: [{ ...(body.tools?.[0] ?? { type: "custom", name: "p" }), [field]: value }],
    })),
    fc.dictionary(fc.constantFrom(...FIELDS), anyJson, { maxKeys: 5 }),
  );

/**
 * Whether the gateway must forward the body (a valid request for a translated model), else
 * answer 400. The fuzzed ids name nothing stored: a request that continues one is a 400.
 */
export function isForwardableResponse(wire: string): boolean {
  try {
    const request = parseResponsesRequest(JSON.parse(wire));
    const references = Array.isArray(request.input) && request.input.some((item) => item.type === "item_reference");
    return TRANSLATED_IDS.includes(request.model) && namesOnlyCatalogModels(request) && !request.previous_response_id && !references;
  } catch {
    return false;
  }
}
