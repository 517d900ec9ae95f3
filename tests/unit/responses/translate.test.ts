// A Responses request as the chat request it amounts to, and its native body: what is priced,
// forwarded and left out.
import { describe, expect, test } from "bun:test";
import { upstreamBody } from "../../../src/core/chat/families.ts";
import { nativeBody, speaksResponses } from "../../../src/core/responses/native.ts";
import { parseResponsesRequest } from "../../../src/core/responses/request.ts";
import { toChatRequest } from "../../../src/core/responses/to-chat.ts";
import { model } from "../chat/fakes.ts";
import { NO_SEAL } from "../../../src/core/reasoning-seal.ts";

describe("toChatRequest", () => {
  test("instructions, messages with parts, function calls and their outputs become chat messages", () => {
    const request = parseResponsesRequest({
      model: "deepseek-v3.2",
      instructions: "Be brief",
      input: [
        { role: "user", content: [{ type: "input_text", text: "What is here?" }, { type: "input_image", image_url: "https://example.test/a.png", detail: "low" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Let me check." }] },
        { type: "function_call", call_id: "c1", name: "look", arguments: "{}" },
        { type: "function_call", call_id: "c2", name: "look", arguments: '{"x":1}' },
        { type: "function_call_output", call_id: "c1", output: "a cat" },
        { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "a dog" }] },
        { type: "reasoning", id: "rs_1", summary: [] },
      ],
    });
    expect(toChatRequest(request, NO_SEAL).request.messages).toEqual([
      { role: "system", content: "Be brief" },
      { role: "user", content: [{ type: "text", text: "What is here?" }, { type: "image_url", image_url: { url: "https://example.test/a.png", detail: "low" } }] },
      {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "look", arguments: "{}" } },
          { id: "c2", type: "function", function: { name: "look", arguments: '{"x":1}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "a cat" },
      { role: "tool", tool_call_id: "c2", content: "a dog" },
    ]);
  });

  test("an item is what its type says, whatever other fields it carries (found by the fuzzer)", () => {
    const request = parseResponsesRequest({ model: "deepseek-v3.2", input: [{ type: "function_call", call_id: "c", name: "f", arguments: "{}", role: [] }] });
    expect(toChatRequest(request, NO_SEAL).request.messages).toEqual([{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] }]);
  });

  test("settings under chat's names: the ceiling, tools, tool_choice, text.format, reasoning", () => {
    const schema = { type: "object", properties: {} };
    const chat = toChatRequest(parseResponsesRequest({
      model: "gpt-5", input: "hi", max_output_tokens: 300, temperature: 0.2, top_p: 0.9, parallel_tool_calls: false,
      tools: [{ type: "function", name: "f", parameters: schema }], tool_choice: { type: "function", name: "f" },
      text: { format: { type: "json_schema", name: "out", schema, strict: true }, verbosity: "low" }, reasoning: { effort: "low" },
      metadata: { a: "b" }, user: "u1", stream: true,
    }), NO_SEAL).request;
    expect(chat).toEqual({
      model: "gpt-5", messages: [{ role: "user", content: "hi" }], stream: true, max_completion_tokens: 300, temperature: 0.2, top_p: 0.9,
      tools: [{ type: "function", function: { name: "f", parameters: schema } }], tool_choice: { type: "function", function: { name: "f" } },
      response_format: { type: "json_schema", json_schema: { name: "out", schema, strict: true } }, verbosity: "low", reasoning_effort: "low",
      parallel_tool_calls: false, metadata: { a: "b" }, user: "u1",
    } as never);
  });
});

describe("nativeBody", () => {
  test.each([
    ["gpt-4.1", true], ["grok-4-3", true], ["deepseek-v3.2", false], ["kimi-k2.6", false], ["llama-4-maverick", false],
  ])("%s speaks the Responses API: %p", (id, native) => {
    expect(speaksResponses(model(id))).toBe(native);
  });

  test("the client's fields less those the family rejects, the ceiling, store: false, the reasoning encrypted, and what was left out", () => {
    const request = parseResponsesRequest({
      model: "gpt-5", input: "hi", max_output_tokens: 100, temperature: 0.3, reasoning: { effort: "low" }, text: { verbosity: "low" }, made_up: 1,
    });
    const gpt5 = model("gpt-5");
    const chat = upstreamBody(toChatRequest(request, NO_SEAL).request, gpt5, 100);
    expect(nativeBody(request, gpt5, 100, chat.dropped, new Set())).toEqual({
      body: { model: gpt5.upstreamModel, input: "hi", text: { verbosity: "low" }, reasoning: { effort: "low" }, max_output_tokens: 100, store: false, include: ["reasoning.encrypted_content"] },
      dropped: ["temperature"],
    });
  });

  test("a text setting the family rejects is left out of text, the rest of text kept", () => {
    const request = parseResponsesRequest({ model: "gpt-4.1", input: "hi", text: { format: { type: "json_object" }, verbosity: "low" } });
    const gpt41 = model("gpt-4.1");
    const chat = upstreamBody(toChatRequest(request, NO_SEAL).request, gpt41, 50);
    expect(nativeBody(request, gpt41, 50, chat.dropped, new Set())).toEqual({
      body: { model: "gpt-4.1", input: "hi", text: { format: { type: "json_object" } }, max_output_tokens: 50, store: false },
      dropped: ["text.verbosity"],
    });
  });
});
