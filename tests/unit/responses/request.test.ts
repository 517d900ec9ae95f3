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
  ["10,000 items (an agent resending its whole session)", { ...base, input: Array.from({ length: 10_000 }, () => say("x")) }],
  ["an item of a type the gateway does not read (a provider-run tool's call)", { ...base, input: [say("a"), { type: "computer_call_output", call_id: "c" }] }],
  ["a tool of every type: function, custom with a grammar, namespace, provider-run ones", {
    ...base,
    tools: [
      { type: "function", name: "exec_command", strict: false, parameters: { type: "object" } },
      { type: "custom", name: "apply_patch", description: "patch", format: { type: "grammar", syntax: "lark", definition: "start: x" } },
      { type: "namespace", name: "multi_agent_v1", description: "agents", tools: [{ type: "function", name: "spawn_agent", parameters: { type: "object" } }] },
      { type: "web_search", external_web_access: false }, { type: "file_search" }, { type: "tool_search", execution: "client", parameters: {} },
    ],
  }],
  ["custom tool calls, their outputs and a sealed reasoning item sent back", { ...base, input: [say("a"), { type: "reasoning", id: "rs_1", summary: [], content: null, encrypted_content: "gwr1.x" }, { type: "custom_tool_call", call_id: "c", name: "apply_patch", input: "*** Begin Patch" }, { type: "custom_tool_call_output", id: "fco_1", call_id: "c", output: "ok" }, { type: "function_call", call_id: "d", namespace: "multi_agent_v1", name: "spawn_agent", arguments: "{}" }] }],
  ["nulls where OpenAI allows them", { ...base, instructions: null, temperature: null, top_p: null, max_output_tokens: null, reasoning: null, store: false, previous_response_id: null }],
  ["a continued conversation: store, previous_response_id and item references", { ...base, store: true, previous_response_id: "resp_1", input: [{ type: "item_reference", id: "msg_1" }, say("and?")] }],
])("accepts %s", (_, body) => {
  expect(refusal(body)).toBeNull();
});

test.each([
  ["a body that is not an object", [], "Request body must be a JSON object"],
  ["no model", { input: "hi" }, "Invalid request: model is required"],
  ["10,001 items", { ...base, input: Array.from({ length: 10_001 }, () => say("x")) }, "Invalid request: input must be a string of at most 2000000 characters or an array of 1 to 10000 items"],
  ["a known item malformed (a custom tool call without input)", { ...base, input: [say("a"), { type: "custom_tool_call", call_id: "c", name: "p" }] }, "Invalid request: input[1] must be a message"],
  ["an item without a type or a role", { ...base, input: [say("a"), { content: "x" }] }, "Invalid request: input[1] must be a message"],
  ["513 tools", { ...base, tools: Array.from({ length: 513 }, (_, i) => ({ type: "function", name: `f${i}` })) }, "Invalid request: tools must be an array of at most 512"],
  ["a function tool without a name", { ...base, tools: [{ type: "function" }] }, "Invalid request: tools[0] must be"],
  ["a custom tool without a name", { ...base, tools: [{ type: "custom", format: { type: "text" } }] }, 'Invalid request: tools[0] must be {type: "custom", name'],
  ["a namespace without tools", { ...base, tools: [{ type: "namespace", name: "n", tools: [] }] }, 'Invalid request: tools[0] must be {type: "namespace", name'],
  ["a tool without a type", { ...base, tools: [{ name: "f" }] }, "Invalid request: tools must be an array of at most 512 tools"],
  ["text.format over 32 KiB", { ...base, text: { format: { type: "json_schema", name: "x", schema: { description: "x".repeat(33_000) } } } }, "Invalid request: text.format exceeds 32768 bytes"],
  ["an unknown reasoning effort", { ...base, reasoning: { effort: "extreme" } }, "Invalid request: reasoning must be"],
  ["an empty previous_response_id", { ...base, previous_response_id: "" }, "Invalid request: previous_response_id must be a response id"],
  ["an item_reference without an id", { ...base, input: [{ type: "item_reference" }] }, "Invalid request: input[0] must be a message"],
  ["background: true", { ...base, background: true }, "background: true is not supported"],
  ["a conversation object", { ...base, conversation: "conv_1" }, "conversation is not supported: continue a conversation with previous_response_id"],
])("refuses %s", (_, body, message) => {
  expect(refusal(body)).toStartWith(message);
});
