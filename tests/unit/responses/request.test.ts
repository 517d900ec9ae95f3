// The Responses request rules: what is accepted, and the 400's words for what is not.
import { expect, test } from "bun:test";
import { isAppError } from "../../../src/core/errors.ts";
import { parseResponsesRequest } from "../../../src/core/responses/request.ts";

const refusal = (body: unknown): string | null => {
  try {
    parseResponsesRequest(body);
    return null;
  } catch (error) {
    if (!isAppError(error) || error.kind !== "invalid_request_error") throw error;
    return error.message;
  }
};

const base = { model: "gpt-4.1", input: "hi" };
const say = (text: string) => ({ role: "user", content: text });

test.each([
  ["a string input", base],
  ["items as the SDKs send them back (ids, statuses, annotations)", { ...base, input: [say("hi"), { id: "fc_1", type: "function_call", status: "completed", call_id: "c", name: "f", arguments: "{}" }, { type: "function_call_output", call_id: "c", output: "x" }, { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok", annotations: [] }] }] }],
  ["200 items", { ...base, input: Array.from({ length: 200 }, () => say("x")) }],
  ["nulls where OpenAI allows them", { ...base, instructions: null, temperature: null, top_p: null, max_output_tokens: null, reasoning: null, store: false, previous_response_id: null }],
  ["a continued conversation: store, previous_response_id and item references", { ...base, store: true, previous_response_id: "resp_1", input: [{ type: "item_reference", id: "msg_1" }, say("and?")] }],
])("accepts %s", (_, body) => {
  expect(refusal(body)).toBeNull();
});

test.each([
  ["a body that is not an object", [], "Request body must be a JSON object"],
  ["no model", { input: "hi" }, "Invalid request: model is required"],
  ["201 items", { ...base, input: Array.from({ length: 201 }, () => say("x")) }, "Invalid request: input must be a string of at most 200000 characters or an array of 1 to 200 items"],
  ["an item of no known kind", { ...base, input: [say("a"), { type: "computer_call_output" }] }, "Invalid request: input[1] must be a message"],
  ["65 tools", { ...base, tools: Array.from({ length: 65 }, (_, i) => ({ type: "function", name: `f${i}` })) }, "Invalid request: tools must be an array of at most 64"],
  ["a function tool without a name", { ...base, tools: [{ type: "function" }] }, "Invalid request: tools[0] must be"],
  ["a server-side tool", { ...base, tools: [{ type: "file_search" }] }, 'Server-side tools are not supported (tools contains type "file_search")'],
  ["text.format over 32 KiB", { ...base, text: { format: { type: "json_schema", name: "x", schema: { description: "x".repeat(33_000) } } } }, "Invalid request: text.format exceeds 32768 bytes"],
  ["an unknown reasoning effort", { ...base, reasoning: { effort: "extreme" } }, "Invalid request: reasoning must be"],
  ["an empty previous_response_id", { ...base, previous_response_id: "" }, "Invalid request: previous_response_id must be a response id"],
  ["an item_reference without an id", { ...base, input: [{ type: "item_reference" }] }, "Invalid request: input[0] must be a message"],
  ["background: true", { ...base, background: true }, "background: true is not supported"],
  ["a conversation object", { ...base, conversation: "conv_1" }, "conversation is not supported: continue a conversation with previous_response_id"],
])("refuses %s", (_, body, message) => {
  expect(refusal(body)).toStartWith(message);
});
