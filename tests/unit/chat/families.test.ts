import { describe, expect, test } from "bun:test";
import { choicesFor, quirksOf, upstreamBody } from "../../../src/core/chat/families.ts";
import { parseChatRequest } from "../../../src/core/chat/request.ts";
import { model } from "./fakes.ts";

const messages = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "hello" },
];
// Forwarded to every family.
const shared = {
  tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
  tool_choice: "auto",
  response_format: { type: "json_object" },
};
// Fields some families reject, in the order the gateway reads them.
const optional = {
  temperature: 0.2,
  top_p: 0.9,
  frequency_penalty: 0.5,
  presence_penalty: -0.5,
  stop: ["\n\n"],
  seed: 42,
  n: 2,
  logprobs: true,
  user: "end-user-7",
  store: false,
  reasoning_effort: "low",
} as const;
type Optional = keyof typeof optional;

// A client body as SDKs send it: the spec's fields, OpenAI's, and extras the gateway keeps to itself.
const fullRequest = parseChatRequest({
  model: "any",
  messages,
  max_tokens: 500,
  ...shared,
  ...optional,
  api_key: "sk-client-secret",
  foo: { bar: 1 },
  stream_options: { include_usage: false },
});

const pick = (fields: readonly Optional[]) => Object.fromEntries(fields.map((f) => [f, optional[f]]));

describe("upstreamBody", () => {
  test.each([
    // model, upstream name, the ceiling's name, the optional fields left out
    ["gpt-5", "gpt-5", "max_completion_tokens", ["temperature", "top_p", "frequency_penalty", "presence_penalty", "stop", "logprobs"]],
    ["gpt-5.4-nano", "gpt-5.4-nano", "max_completion_tokens", ["temperature", "top_p", "frequency_penalty", "presence_penalty", "stop", "logprobs"]],
    ["o4-mini", "o4-mini", "max_completion_tokens", ["temperature", "top_p", "frequency_penalty", "presence_penalty", "stop", "logprobs"]],
    ["gpt-4.1", "gpt-4.1", "max_tokens", ["reasoning_effort"]],
    ["gpt-4o", "gpt-4o", "max_tokens", ["reasoning_effort"]],
    ["grok-4-20-reasoning", "grok-4.20-reasoning", "max_tokens", ["frequency_penalty", "presence_penalty", "stop", "store", "reasoning_effort"]],
    ["grok-4-1-fast-reasoning", "grok-4-1-fast-reasoning", "max_tokens", ["frequency_penalty", "presence_penalty", "stop", "store", "reasoning_effort"]],
    ["grok-4-3", "grok-4.3", "max_tokens", ["frequency_penalty", "presence_penalty", "stop", "store"]],
    ["deepseek-v3.2", "deepseek-chat", "max_tokens", ["seed", "n", "user", "store", "reasoning_effort"]],
    ["deepseek-v4-pro", "deepseek-v4-pro", "max_tokens", ["seed", "n", "logprobs", "user", "store"]],
    ["kimi-k2.6", "kimi-k2.6", "max_tokens", ["temperature", "top_p", "frequency_penalty", "presence_penalty", "seed", "n", "user", "store", "reasoning_effort"]],
    ["llama-3.3-70b-instruct", "Llama-3.3-70B-Instruct", "max_tokens", ["n", "logprobs", "store", "reasoning_effort"]],
    ["llama-4-scout", "Llama-4-Scout-17B-16E-Instruct-FP8", "max_tokens", ["n", "logprobs", "store", "reasoning_effort"]],
  ] as const)("%s goes upstream as %s with %s, leaving out %p", (id, upstream, tokenParam, dropped) => {
    const kept = (Object.keys(optional) as Optional[]).filter((f) => !(dropped as readonly string[]).includes(f));
    expect(upstreamBody(fullRequest, model(id), 321)).toEqual({
      body: { model: upstream, messages, ...shared, ...pick(kept), [tokenParam]: 321 },
      dropped: [...dropped],
    });
  });

  test("a tool of a type chat completions do not run is left out and named; with none left, tool_choice goes too", () => {
    const fn = { type: "function", function: { name: "f" } };
    const custom = { type: "custom", custom: { name: "apply_patch" } };
    const some = parseChatRequest({ model: "gpt-5", messages, tools: [fn, { type: "web_search" }, custom, { type: "web_search" }], tool_choice: "auto" });
    expect(upstreamBody(some, model("gpt-5"), 10)).toEqual({ body: { model: "gpt-5", messages, tools: [fn, custom], tool_choice: "auto", max_completion_tokens: 10 }, dropped: ["tools.web_search"] });
    const none = parseChatRequest({ model: "gpt-5", messages, tools: [{ type: "file_search" }], tool_choice: "required" });
    expect(upstreamBody(none, model("gpt-5"), 10)).toEqual({ body: { model: "gpt-5", messages, max_completion_tokens: 10 }, dropped: ["tools.file_search", "tool_choice"] });
    // An empty list is not sent (providers refuse it), and is named as dropped: nothing the client sent vanishes unsaid.
    const empty = parseChatRequest({ model: "gpt-5", messages, tools: [] });
    expect(upstreamBody(empty, model("gpt-5"), 10)).toEqual({ body: { model: "gpt-5", messages, max_completion_tokens: 10 }, dropped: ["tools"] });
  });

  test.each([
    ["gpt-5", { max_tokens: 100 }, { max_completion_tokens: 64 }],
    ["gpt-5", { max_completion_tokens: 100 }, { max_completion_tokens: 64 }],
    ["gpt-4.1", { max_completion_tokens: 100 }, { max_tokens: 64 }],
    ["gpt-4.1", { max_tokens: 100, max_completion_tokens: 80 }, { max_tokens: 64 }],
    ["kimi-k2.5", {}, { max_tokens: 64 }],
  ] as const)("%s sends the given ceiling under one name only, whatever the client named (%p)", (id, ceilings, sent) => {
    const request = parseChatRequest({ model: id, messages, ...ceilings });
    expect(upstreamBody(request, model(id), 64)).toEqual({ body: { model: model(id).upstreamModel, messages, ...sent }, dropped: [] });
  });

  test.each(["gpt-5", "gpt-4.1", "grok-4-20-reasoning", "deepseek-v3.2", "kimi-k2.6", "llama-4-maverick"])(
    "%s asks for usage in streams, whatever the client's stream_options say",
    (id) => {
      const request = parseChatRequest({ model: id, messages, stream: true, stream_options: { include_usage: false } });
      expect(upstreamBody(request, model(id), 10).body).toEqual({
        model: model(id).upstreamModel,
        messages,
        [quirksOf(model(id)).tokenParam]: 10,
        stream: true,
        stream_options: { include_usage: true },
      });
    },
  );

  test.each([[{ stream: false }], [{}]])("a request that does not stream (%p) sends neither stream nor stream_options", (stream) => {
    const request = parseChatRequest({ model: "gpt-4.1", messages, stream_options: { include_usage: true }, ...stream });
    expect(upstreamBody(request, model("gpt-4.1"), 10).body).toEqual({ model: "gpt-4.1", messages, max_tokens: 10 });
  });

  test("fields the client left out are not sent, not even as undefined", () => {
    const { body } = upstreamBody(parseChatRequest({ model: "gpt-4.1", messages }), model("gpt-4.1"), 10);
    expect(Object.keys(body).sort()).toEqual(["max_tokens", "messages", "model"]);
  });
});

test("GPT-5.1 and later take sampling and log probabilities only without reasoning", () => {
  const request = parseChatRequest({ model: "gpt-5.4-nano", messages, temperature: 0.2, logprobs: true, reasoning_effort: "none" });
  expect(upstreamBody(request, model("gpt-5.4-nano"), 64)).toEqual({
    body: { model: "gpt-5.4-nano", messages, temperature: 0.2, logprobs: true, reasoning_effort: "none", max_completion_tokens: 64 },
    dropped: [],
  });
  const gpt5 = parseChatRequest({ model: "gpt-5", messages, temperature: 0.2, reasoning_effort: "none" });
  expect(upstreamBody(gpt5, model("gpt-5"), 64).dropped).toEqual(["temperature"]);
});

describe("choicesFor", () => {
  test.each([
    ["gpt-4.1", 3, 3],
    ["gpt-5", 3, 3],
    ["kimi-k2.6", 3, 1],
    ["grok-4-3", 3, 3],
    ["deepseek-v3.2", 3, 1],
    ["llama-4-scout", 3, 1],
    ["gpt-4.1", undefined, 1],
  ] as const)("%s asked for n = %p writes %i completions", (id, n, choices) => {
    const request = parseChatRequest({ model: id, messages, ...(n === undefined ? {} : { n }) });
    expect(choicesFor(request, model(id))).toBe(choices);
  });
});

describe("quirksOf", () => {
  // The family follows the provider's own model name, not the public ID an operator chose.
  test.each([
    ["openai", "o3", "max_completion_tokens"],
    ["openai", "o1-mini", "max_completion_tokens"],
    ["openai", "gpt-5-chat-latest", "max_completion_tokens"],
    ["openai", "gpt-4o-mini", "max_tokens"],
    ["openai", "chatgpt-4o-latest", "max_tokens"],
    ["deepseek", "o3-lookalike", "max_tokens"],
    ["xai", "gpt-5", "max_tokens"],
  ] as const)("a %s model named %s upstream takes %s", (provider, upstreamModel, tokenParam) => {
    const custom = { ...model("gpt-4.1"), id: "house-alias", provider, upstreamModel };
    expect(quirksOf(custom).tokenParam).toBe(tokenParam);
  });

  // xAI names its non-reasoning variants "...-non-reasoning": they keep the sampling fields.
  test("xAI's grok-4-1-fast-non-reasoning keeps frequency_penalty, presence_penalty and stop", () => {
    const fast = { ...model("grok-4-3"), upstreamModel: "grok-4-1-fast-non-reasoning" };
    const reasoning = { ...model("grok-4-3"), upstreamModel: "grok-4-1-fast-reasoning" };
    expect(quirksOf(fast).rejects).not.toContain("stop");
    expect(quirksOf(reasoning).rejects).toEqual(expect.arrayContaining(["frequency_penalty", "presence_penalty", "stop"]));
  });
});
