// The chat relay's payloads rewritten as Responses events: translated chunks, native events
// carried in chunks, and the relay's error.
import { expect, test } from "bun:test";
import type { StreamSink } from "../../../src/core/chat/relay.ts";
import { ResponseEvents } from "../../../src/core/responses/events.ts";
import { parseResponsesRequest } from "../../../src/core/responses/request.ts";
import { NO_SEAL } from "../../../src/core/reasoning-seal.ts";

function capture() {
  const written: string[] = [];
  const sink: StreamSink = { emit: (p) => written.push(p), emitBytes: (p) => written.push(new TextDecoder().decode(p)), flush: async () => {}, gone: false };
  const events = () => written.join("").split("\n\n").filter(Boolean).map((e) => {
    const [name, data] = e.split("\n");
    const parsed = JSON.parse(data!.slice("data: ".length)) as Record<string, unknown>;
    expect(name).toBe(`event: ${parsed.type}`);
    return parsed;
  });
  return { sink, events };
}

const request = parseResponsesRequest({ model: "deepseek-v3.2", input: "hi" });
const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({ id: "chatcmpl-1", created: 7, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
const wire = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 }, cost_usd: "0.000001680" };

test("text and a length finish: the item's events, then response.incomplete with the usage in Responses names", () => {
  const { sink, events } = capture();
  const writer = new ResponseEvents(sink, request, { id: "resp_1", model: "deepseek-v3.2", native: false, now: () => 0, seal: NO_SEAL });
  writer.emit(data(chunk({ role: "assistant", content: "Hel" })));
  writer.emit(data(chunk({ content: "lo" })) + data(chunk({}, "length", { usage: wire })) + "data: [DONE]\n\n");
  const all = events();
  expect(all.map((e) => [e.sequence_number, e.type])).toEqual([
    [0, "response.created"], [1, "response.in_progress"], [2, "response.output_item.added"], [3, "response.content_part.added"],
    [4, "response.output_text.delta"], [5, "response.output_text.delta"], [6, "response.output_text.done"], [7, "response.content_part.done"],
    [8, "response.output_item.done"], [9, "response.incomplete"],
  ]);
  expect(all.at(-1)!.response).toMatchObject({
    id: "resp_1", created_at: 7, status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, model: "deepseek-v3.2",
    output: [{ id: "msg_1_0", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Hello", annotations: [], logprobs: [] }] }],
    usage: { input_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 5, cost_usd: "0.000001680" },
  });
});

test("native events pass renumbered, with the gateway's id and the public model, and the last one carries the charged usage", () => {
  const { sink, events } = capture();
  const writer = new ResponseEvents(sink, request, { id: "resp_gw", model: "gpt-4.1", native: true, now: () => 0, seal: NO_SEAL });
  const native = (event: object, extra: object = {}) => data({ choices: [{ index: 0, delta: {} }], event, ...extra });
  writer.emit(native({ type: "response.created", sequence_number: 40, response: { id: "resp_x", created_at: 1, model: "gpt-4.1-2025-04-14", usage: null } }));
  writer.emit(native({ type: "response.completed", sequence_number: 41, response: { id: "resp_x", created_at: 1, model: "gpt-4.1-2025-04-14", usage: { input_tokens: 3 } } }, { usage: wire }));
  writer.emit("data: [DONE]\n\n");
  expect(events()).toEqual([
    { type: "response.created", sequence_number: 0, response: { id: "resp_gw", created_at: 1, model: "gpt-4.1", usage: null, store: false, previous_response_id: null } },
    { type: "response.completed", sequence_number: 1, response: { id: "resp_gw", created_at: 1, model: "gpt-4.1", store: false, previous_response_id: null, usage: { input_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 5, cost_usd: "0.000001680" } } },
  ]);
});

test("the relay's error event becomes response.failed with what was written so far", () => {
  const { sink, events } = capture();
  const writer = new ResponseEvents(sink, request, { id: "resp_1", model: "deepseek-v3.2", native: false, now: () => 0, seal: NO_SEAL });
  writer.emit(data(chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "f", arguments: '{"a"' } }] })));
  writer.emit(data({ error: { message: "Upstream provider timed out after 1 s", type: "provider_error", code: "502" } }));
  const failed = events().at(-1)!;
  expect(failed).toMatchObject({
    type: "response.failed",
    response: { status: "failed", error: { code: "upstream_error", message: "Upstream provider timed out after 1 s" }, usage: null, output: [{ type: "function_call", call_id: "call_1", name: "f", arguments: '{"a"', status: "incomplete" }] },
  });
});

test("with a keeper, the last event waits until the Response is kept, and the Response kept is the one sent", async () => {
  const { sink, events } = capture();
  let kept: Record<string, unknown> | null = null;
  let done!: () => void;
  const keeping = new Promise<void>((resolve) => (done = resolve));
  const keep = (response: Record<string, unknown>) => {
    kept = response;
    return keeping;
  };
  const writer = new ResponseEvents(sink, { ...request, store: true }, { id: "resp_k", model: "deepseek-v3.2", native: false, now: () => 0, seal: NO_SEAL, keep });
  writer.emit(data(chunk({ content: "Hi" })) + data(chunk({}, "stop", { usage: wire })) + "data: [DONE]\n\n");
  const finished = writer.finished();
  expect(events().map((e) => e.type).at(-1)).toBe("response.output_item.done");
  done();
  await finished;
  const last = events().at(-1)!;
  expect(last.type).toBe("response.completed");
  expect(last.response).toEqual(kept!);
  expect(last.response).toMatchObject({ id: "resp_k", store: true, previous_response_id: null });
});

test("the terminal event waits for the relay's [DONE] (the charge written), and a charge that fails ends the stream as response.failed alone", () => {
  const charged = capture();
  const writer = new ResponseEvents(charged.sink, request, { id: "resp_1", model: "deepseek-v3.2", native: false, now: () => 0, seal: NO_SEAL });
  writer.emit(data(chunk({ content: "Hi" })) + data(chunk({}, "stop", { usage: wire })));
  expect(charged.events().map((e) => e.type).at(-1)).toBe("response.output_item.done");
  writer.emit("data: [DONE]\n\n");
  expect(charged.events().map((e) => e.type).at(-1)).toBe("response.completed");

  const unwritten = capture();
  const failing = new ResponseEvents(unwritten.sink, request, { id: "resp_2", model: "deepseek-v3.2", native: false, now: () => 0, seal: NO_SEAL });
  failing.emit(data(chunk({ content: "Hi" })) + data(chunk({}, "stop", { usage: wire })));
  failing.emit(data({ error: { message: "The service is temporarily unavailable; this request will not be charged", type: "unavailable", code: "503" } }));
  const types = unwritten.events().map((e) => e.type);
  expect(types).not.toContain("response.completed");
  expect(unwritten.events().at(-1)).toMatchObject({
    type: "response.failed",
    response: { status: "failed", usage: null, error: { code: "server_error", message: "The service is temporarily unavailable; this request will not be charged" } },
  });
});
