// Tools of every type translated to chat functions and their calls written back, and the seal
// that brings a translated model's reasoning back.
import { describe, expect, test } from "bun:test";
import { NO_SEAL, reasoningSeal, sealedByGateway } from "../../../src/core/reasoning-seal.ts";
import { parseResponsesRequest } from "../../../src/core/responses/request.ts";
import { fromCompletion } from "../../../src/core/responses/response.ts";
import { toChatRequest } from "../../../src/core/responses/to-chat.ts";
import { callItem, chatName, ChatTools, customInput } from "../../../src/core/responses/tool-names.ts";
import { nativeTools } from "../../../src/core/responses/tools.ts";

const key = new Uint8Array(32).fill(7);
const seal = reasoningSeal(key);

describe("the reasoning seal", () => {
  test("opens what it sealed, and nothing else", () => {
    const sealed = seal.seal("the plan: ls first")!;
    expect(sealed).toStartWith("gwr1.");
    expect(sealedByGateway(sealed)).toBe(true);
    expect(sealed).not.toContain("plan");
    expect(seal.open(sealed)).toBe("the plan: ls first");
    // A fresh nonce each time: the same text never seals the same.
    expect(seal.seal("the plan: ls first")).not.toBe(sealed);
  });

  test("a seal changed by one character, another deployment's, a foreign value or none opens to null", () => {
    const sealed = seal.seal("text")!;
    const flipped = sealed.slice(0, -2) + (sealed.at(-2) === "A" ? "B" : "A") + sealed.at(-1);
    const other = reasoningSeal(new Uint8Array(32).fill(8)).seal("text");
    for (const value of [flipped, other, "gAAAAA-openai", "gwr1.", "gwr1.AAAA", "", null, undefined, 42, { sealed }]) expect(seal.open(value)).toBeNull();
  });

  test("a deployment without a key seals nothing", () => {
    expect(NO_SEAL.seal("x")).toBeNull();
    expect(NO_SEAL.open(seal.seal("x"))).toBeNull();
  });
});

describe("tools as chat functions", () => {
  const tools = new ChatTools([
    { type: "function", name: "exec_command", parameters: { type: "object" }, strict: false, description: null },
    { type: "custom", name: "apply_patch", format: { type: "text" } },
    { type: "namespace", name: "crm", description: "CRM", tools: [{ type: "function", name: "find" }, { type: "custom", name: "note" }] },
    { type: "web_search" },
  ]);

  test("function tools as they are, custom tools taking one string, a namespace's tools named by both names; provider-run ones have no function", () => {
    expect(tools.functions.map((f) => (f.function as { name: string }).name)).toEqual(["exec_command", "apply_patch", "crm__find", "crm__note"]);
    expect(tools.functions[0]).toEqual({ type: "function", function: { name: "exec_command", parameters: { type: "object" }, strict: false } });
    expect((tools.functions[1]!.function as { parameters: unknown }).parameters).toEqual({ type: "object", properties: { input: { type: "string", description: "The tool's input, as freeform text" } }, required: ["input"] });
  });

  test("a call is written back as OpenAI writes it for the tool it names", () => {
    const call = (name: string, args: string) => callItem("x_1", { call_id: "c", arguments: args }, tools.named(name), "completed");
    expect(call("exec_command", '{"cmd":"ls"}')).toEqual({ id: "x_1", type: "function_call", status: "completed", call_id: "c", name: "exec_command", arguments: '{"cmd":"ls"}' });
    expect(call("apply_patch", '{"input":"*** Begin Patch"}')).toEqual({ id: "x_1", type: "custom_tool_call", status: "completed", call_id: "c", name: "apply_patch", input: "*** Begin Patch" });
    expect(call("crm__find", "{}")).toMatchObject({ type: "function_call", namespace: "crm", name: "find" });
    expect(call("crm__note", '{"input":"hi"}')).toMatchObject({ type: "custom_tool_call", namespace: "crm", name: "note", input: "hi" });
    // A name no tool has (a model's invention) stays a plain function call.
    expect(call("made_up", "{}")).toMatchObject({ type: "function_call", name: "made_up" });
  });

  test("a custom tool's input: the one string, or the model's text as written when it is not that JSON", () => {
    expect(customInput('{"input":"a\\nb"}')).toBe("a\nb");
    expect(customInput("*** Begin Patch")).toBe("*** Begin Patch");
    expect(customInput('{"patch":"x"}')).toBe('{"patch":"x"}');
  });

  test("chat names stay within chat's alphabet and 64 characters, and long ones stay apart", () => {
    expect(chatName("tool.v2", "my ns")).toBe("my_ns__tool_v2");
    expect(chatName("x", "mcp__server_")).toBe("mcp__server_x");
    const a = chatName("a".repeat(70), "ns");
    const b = chatName(`${"a".repeat(69)}b`, "ns");
    expect([a.length, b.length]).toEqual([64, 64]);
    expect(a).not.toBe(b);
  });

  test("natively every client-run tool passes, provider-run ones only when sold", () => {
    const all = [{ type: "function", name: "f" }, { type: "web_search" }, { type: "file_search" }, { type: "tool_search", execution: "client" }, { type: "web_search" }];
    expect(nativeTools(all, new Set())).toEqual({ kept: [all[0]!, all[3]!], dropped: ["tools.web_search", "tools.file_search"] });
    expect(nativeTools(all, new Set(["web_search"])).kept).toEqual([all[0]!, all[1]!, all[3]!, all[4]!]);
  });
});

describe("the round trip of a translated turn", () => {
  const request = parseResponsesRequest({
    model: "deepseek-v4-pro", input: "go", include: ["reasoning.encrypted_content"],
    tools: [{ type: "custom", name: "apply_patch" }, { type: "file_search" }], tool_choice: { type: "custom", name: "apply_patch" },
  });

  test("the answer's reasoning is sealed when asked for, and sent back it becomes the call's reasoning_content", () => {
    const completion = { created: 1, model: "deepseek-v4-pro", choices: [{ message: { reasoning_content: "patch it", tool_calls: [{ id: "c1", function: { name: "apply_patch", arguments: '{"input":"P"}' } }] }, finish_reason: "tool_calls" }] };
    const output = fromCompletion(completion, request, "resp_1", seal).output as Record<string, unknown>[];
    expect(output.map((item) => item.type)).toEqual(["reasoning", "custom_tool_call"]);
    const back = parseResponsesRequest({ ...request, input: ["go", ...output, { type: "custom_tool_call_output", call_id: "c1", output: "ok" }].map((item) => (typeof item === "string" ? { role: "user", content: item } : item)) });
    const { request: chat, dropped } = toChatRequest(back, seal);
    expect(chat.messages.slice(1)).toEqual([
      { role: "assistant", content: null, reasoning_content: "patch it", tool_calls: [{ id: "c1", type: "function", function: { name: "apply_patch", arguments: '{"input":"P"}' } }] },
      { role: "tool", tool_call_id: "c1", content: "ok" },
    ] as never);
    expect(chat.tool_choice).toEqual({ type: "function", function: { name: "apply_patch" } });
    expect(dropped).toEqual(["tools.file_search"]);
  });

  test("without include, no encrypted_content; with another key, nothing restored", () => {
    const completion = { created: 1, choices: [{ message: { reasoning_content: "r", content: "t" } }] };
    const plain = fromCompletion(completion, { ...request, include: undefined }, "resp_2", seal).output as Record<string, unknown>[];
    expect(plain[0]!.encrypted_content).toBeUndefined();
    const sealed = fromCompletion(completion, request, "resp_3", seal).output as Record<string, unknown>[];
    const back = parseResponsesRequest({ model: "m", input: [sealed[0], { type: "function_call", call_id: "c", name: "f", arguments: "{}" }] });
    expect(toChatRequest(back, reasoningSeal(new Uint8Array(32))).request.messages).toEqual([{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] }] as never);
  });
});
