import { describe, expect, test } from "bun:test";
import { completionResponse, finalChunk, readChunk, readCompletion } from "../../../src/core/chat/response.ts";
import { readUsage, wireUsage, type Usage } from "../../../src/core/chat/usage.ts";
import { nanos } from "../../../src/core/money.ts";
import { model } from "./fakes.ts";

const NOW = 1_700_000_123_456;
const gpt41 = model("gpt-4.1");
const choices = [{ index: 0, message: { role: "assistant", content: "Hello!" }, finish_reason: "stop" }];

/** A normalised usage without details. */
const plain = (prompt: number, completion: number): Usage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  cached_tokens: 0,
  reasoning_tokens: 0,
  details: { prompt: {}, completion: {} },
});

/** The usage the client reads for `plain(prompt, completion)` charged `costUsd`. */
const wire = (prompt: number, completion: number, costUsd: string) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
  cost_usd: costUsd,
});

describe("readCompletion", () => {
  test("reads the provider's body and its usage", () => {
    const body = { id: "chatcmpl-abc", choices, usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } };
    expect(readCompletion(body, gpt41)).toEqual({ body, usage: plain(10, 5) });
  });

  test.each([
    ["null", null],
    ["undefined (not JSON)", undefined],
    ["a string", "Hello!"],
    ["a number", 42],
    ["an array", [{ choices }]],
    ["an object without choices", { id: "chatcmpl-abc", usage: { prompt_tokens: 1, completion_tokens: 1 } }],
    ["choices that are not an array", { choices: { 0: choices[0] } }],
    ["an error body", { error: { message: "overloaded" } }],
  ])("is null for %s", (_title, upstream) => {
    expect(readCompletion(upstream, gpt41)).toBeNull();
  });

  test.each([
    ["missing", {}],
    ["null", { usage: null }],
    ["counts as strings", { usage: { prompt_tokens: "10", completion_tokens: "5" } }],
    ["a negative count", { usage: { prompt_tokens: -1, completion_tokens: 5 } }],
    ["no completion_tokens", { usage: { prompt_tokens: 10, total_tokens: 10 } }],
  ])("has no usage when the provider's is %s", (_title, usage) => {
    expect(readCompletion({ choices, ...usage }, gpt41)?.usage).toBeNull();
  });
});

describe("completionResponse", () => {
  test("keeps the provider's fields, with the public model ID and the usage with its charge", () => {
    const body = {
      id: "chatcmpl-abc",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "gpt-4.1-2025-04-14",
      choices,
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 999 },
      system_fingerprint: "fp_123",
    };
    expect(completionResponse({ body, usage: plain(10, 5) }, gpt41, nanos(60_000n), NOW)).toEqual({
      id: "chatcmpl-abc",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "gpt-4.1",
      choices,
      usage: wire(10, 5, "0.000060000"),
      system_fingerprint: "fp_123",
    });
  });

  test.each([
    ["missing", {}],
    ["not a string", { id: 12345 }],
  ])("makes up a chatcmpl- ID when the provider's is %s", (_title, id) => {
    const response = completionResponse({ body: { ...id, created: 1, choices }, usage: null }, gpt41, nanos(0), NOW);
    expect(response.id).toEqual(expect.stringMatching(/^chatcmpl-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/));
  });

  test.each([
    ["missing", {}],
    ["a string", { created: "1700000000" }],
    ["fractional", { created: 1_700_000_000.5 }],
  ])("dates the response at now, in seconds, when created is %s", (_title, created) => {
    const response = completionResponse({ body: { id: "x", ...created, choices }, usage: null }, gpt41, nanos(0), NOW);
    expect(response.created).toBe(1_700_000_123);
  });

  test("without usage the client sees zero tokens and what was charged", () => {
    const response = completionResponse({ body: { id: "x", object: "chat.completion", created: 1, choices }, usage: null }, gpt41, nanos(1_200_000n), NOW);
    expect(response).toEqual({ id: "x", object: "chat.completion", created: 1, model: "gpt-4.1", choices, usage: wire(0, 0, "0.001200000") });
  });
});

describe("readChunk", () => {
  const content = () => ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-4.1-2025-04-14",
    choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }],
    usage: null,
  });

  test("a content chunk gets the public model ID, loses the usage key and keeps its keys' order", () => {
    const chunk = content();
    const read = readChunk(chunk, gpt41);
    expect(read).toEqual({
      chunk: {
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model: "gpt-4.1",
        choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }],
      },
      usage: null,
      final: false,
    });
    expect(read.chunk).toBe(chunk); // reshaped in place
    expect(JSON.stringify(read.chunk)).toBe(
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4.1",' +
        '"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}',
    );
  });

  test.each([
    ["missing", {}],
    ["wrong", { object: "chat.completion" }],
  ])("sets object to chat.completion.chunk when the provider's is %s", (_title, object) => {
    const { object: _providers, ...rest } = content();
    expect(readChunk({ ...rest, ...object }, gpt41).chunk?.object).toBe("chat.completion.chunk");
  });

  test.each([
    ["stop", true, "stop"],
    ["length", true, "length"],
    ["tool_calls", true, "tool_calls"],
    ["null", false, null],
    ["absent", false, undefined],
  ])("finish_reason %s makes the chunk final: %p", (_title, final, finishReason) => {
    const chunk = { ...content(), choices: [{ index: 0, delta: {}, finish_reason: finishReason }] };
    expect(readChunk(chunk, gpt41).final).toBe(final);
  });

  test.each([
    ["empty choices (OpenAI)", { choices: [] }],
    ["no choices key", {}],
  ])("a usage-only chunk with %s is not relayed but its usage is read", (_title, choicesPart) => {
    const chunk = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "x", ...choicesPart, usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } };
    expect(readChunk(chunk, gpt41)).toEqual({ chunk: null, usage: plain(12, 3), final: false });
  });

  test("a finish chunk carrying usage (DeepSeek) is final, its usage read and taken out of the chunk", () => {
    const chunk = {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "deepseek-chat",
      choices: [{ index: 0, delta: { content: "" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27, prompt_cache_hit_tokens: 5, prompt_cache_miss_tokens: 15 },
    };
    expect(readChunk(chunk, model("deepseek-v3.2"))).toEqual({
      chunk: {
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "deepseek-v3.2",
        choices: [{ index: 0, delta: { content: "" }, finish_reason: "stop" }],
      },
      usage: { ...plain(20, 7), cached_tokens: 5 },
      final: true,
    });
  });

  test("a finish chunk with the usage inside its choice (Moonshot) is final, its usage read and taken out", () => {
    const chunk = {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "kimi-k2.6",
      choices: [{ index: 0, delta: {}, finish_reason: "stop", usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39, cached_tokens: 10 } }],
    };
    expect(readChunk(chunk, model("kimi-k2.6"))).toEqual({
      chunk: {
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "kimi-k2.6",
        choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
      },
      usage: { ...plain(30, 9), cached_tokens: 10 },
      final: true,
    });
  });
});

test("finalChunk merges the usage and its charge into the held-back chunk", () => {
  const chunk = { id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-4.1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };
  expect(finalChunk(chunk, plain(12, 2), nanos(40_000n))).toEqual({ ...chunk, usage: wire(12, 2, "0.000040000") });
});

describe("readUsage", () => {
  test.each([
    ["OpenAI", "openai", { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }, plain(10, 5)],
    ["a wrong total, recomputed", "openai", { prompt_tokens: 10, completion_tokens: 5, total_tokens: 1 }, plain(10, 5)],
    ["no total", "meta", { prompt_tokens: 3, completion_tokens: 4 }, plain(3, 4)],
    ["zeros", "meta", { prompt_tokens: 0, completion_tokens: 0 }, plain(0, 0)],
    [
      "OpenAI's details: reasoning inside completion_tokens, cached inside prompt_tokens",
      "openai",
      { prompt_tokens: 100, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 40, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 20 } },
      { ...plain(100, 50), cached_tokens: 40, reasoning_tokens: 20, details: { prompt: { cached_tokens: 40, audio_tokens: 0 }, completion: { reasoning_tokens: 20 } } },
    ],
    [
      "xAI's reasoning, outside completion_tokens, as completion tokens",
      "xai",
      { prompt_tokens: 100, completion_tokens: 50, total_tokens: 180, completion_tokens_details: { reasoning_tokens: 30 } },
      { ...plain(100, 80), reasoning_tokens: 30, details: { prompt: {}, completion: { reasoning_tokens: 30 } } },
    ],
    [
      "DeepSeek's cache hits as cached tokens",
      "deepseek",
      { prompt_tokens: 100, completion_tokens: 50, prompt_cache_hit_tokens: 60, prompt_cache_miss_tokens: 40 },
      { ...plain(100, 50), cached_tokens: 60 },
    ],
    ["Moonshot's cached_tokens", "moonshot", { prompt_tokens: 100, completion_tokens: 50, cached_tokens: 30 }, { ...plain(100, 50), cached_tokens: 30 }],
    ["OpenAI's without a top-level cached_tokens", "openai", { prompt_tokens: 100, completion_tokens: 50, cached_tokens: 30 }, plain(100, 50)],
    [
      "cached tokens above the prompt, capped at it",
      "openai",
      { prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 99 } },
      { ...plain(10, 5), cached_tokens: 10, details: { prompt: { cached_tokens: 99 }, completion: {} } },
    ],
  ] as const)("reads %s", (_title, provider, value, usage) => {
    expect(readUsage(value, provider)).toEqual(usage);
  });

  test.each([
    ["null", null],
    ["undefined", undefined],
    ["a number", 15],
    ["an array", [10, 5]],
    ["an empty object", {}],
    ["no prompt_tokens", { completion_tokens: 5 }],
    ["no completion_tokens", { prompt_tokens: 5 }],
    ["a string count", { prompt_tokens: "10", completion_tokens: 5 }],
    ["a negative count", { prompt_tokens: 10, completion_tokens: -5 }],
    ["a fractional count", { prompt_tokens: 10.5, completion_tokens: 5 }],
    ["an unsafe integer", { prompt_tokens: 2 ** 53, completion_tokens: 5 }],
    ["NaN", { prompt_tokens: Number.NaN, completion_tokens: 5 }],
  ])("is null for %s", (_title, value) => {
    expect(readUsage(value, "openai")).toBeNull();
  });
});

describe("wireUsage", () => {
  test("shows the normalised counts, the provider's other details and the exact charge", () => {
    const usage = { ...plain(100, 50), cached_tokens: 40, reasoning_tokens: 20, details: { prompt: { audio_tokens: 0 }, completion: { accepted_prediction_tokens: 3 } } };
    expect(wireUsage(usage, nanos(123_456_789n))).toEqual({
      prompt_tokens: 100,
      completion_tokens: 50,
      total_tokens: 150,
      prompt_tokens_details: { audio_tokens: 0, cached_tokens: 40 },
      completion_tokens_details: { accepted_prediction_tokens: 3, reasoning_tokens: 20 },
      cost_usd: "0.123456789",
    });
  });

  test("without usage shows zeros beside the charge", () => {
    expect(wireUsage(null, nanos(1n))).toEqual(wire(0, 0, "0.000000001"));
  });
});

test("an error event in place of a chunk fails the stream as the provider's", () => {
  const event = { error: { message: "The server had an error while processing your request.", type: "server_error" } };
  expect(() => readChunk(event, model("gpt-4.1"))).toThrow("Upstream provider request failed");
});
