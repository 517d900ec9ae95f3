// Responses API bodies for the endpoint fuzzer: valid ones, valid ones with one field or one
// input item's field replaced by anything, and records of anything; and the verdict on each.
import fc from "fast-check";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { speaksResponses } from "../../src/core/responses/native.ts";
import { parseResponsesRequest } from "../../src/core/responses/request.ts";

// The fuzzer's provider speaks chat completions only: the translated models are fuzzed here,
// the native ones in tests/integration/responses.*.test.ts.
const TRANSLATED_IDS = FALLBACK_CATALOG.filter((m) => !speaksResponses(m)).map((m) => m.id);

const item = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "assistant", "system", "developer"), content: fc.oneof(fc.string({ maxLength: 100 }), fc.constant([{ type: "input_text", text: "hi" }])) }),
  fc.record({ type: fc.constant("function_call"), call_id: fc.constant("call_1"), name: fc.constant("f"), arguments: fc.constant("{}") }),
  fc.record({ type: fc.constant("function_call_output"), call_id: fc.constant("call_1"), output: fc.string({ maxLength: 50 }) }),
  fc.record({ type: fc.constant("item_reference"), id: fc.string({ minLength: 1, maxLength: 20 }) }),
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
    tools: fc.constantFrom([{ type: "function", name: "f", parameters: { type: "object" } }], [{ type: "web_search" }]),
    tool_choice: fc.constantFrom("auto", "none", "required"),
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

const FIELDS = ["model", "input", "instructions", "stream", "max_output_tokens", "temperature", "top_p", "tools", "tool_choice", "text", "reasoning", "metadata", "store"];

export const responsesRequest = (anyJson: fc.Arbitrary<unknown>) =>
  fc.oneof(
    validResponses,
    fc.tuple(validResponses, fc.constantFrom(...FIELDS), anyJson).map(([body, field, value]) => ({ ...body, [field]: value })),
    fc.tuple(validResponses, fc.constantFrom("role", "content", "type", "call_id", "output"), anyJson).map(([body, field, value]) => ({
      ...body,
      input: [{ ...(Array.isArray(body.input) ? body.input[0] : { role: "user", content: "x" }), [field]: value }],
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
    return TRANSLATED_IDS.includes(request.model) && !request.previous_response_id && !references;
  } catch {
    return false;
  }
}
