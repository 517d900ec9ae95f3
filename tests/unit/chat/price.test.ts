import { describe, expect, test } from "bun:test";
import { estimatePromptTokens, outputCeiling, priceRequest } from "../../../src/core/chat/price.ts";
import { nanos, requestCost } from "../../../src/core/money.ts";
import { model } from "./fakes.ts";

describe("estimatePromptTokens", () => {
  test.each([
    [0, 1, 7],
    [100, 1, 107],
    [1_000, 3, 1_015],
    [65_536, 100, 65_939],
  ])("a %i-byte body with %i messages bounds the prompt at %i tokens", (bytes, messages, tokens) => {
    expect(estimatePromptTokens(bytes, messages)).toBe(tokens);
  });

  test.each(["hello", "héllo wörld", "你好，世界", "🙂🙂🙂", 'quote " and \\ backslash'])(
    "is never below the UTF-8 bytes of the text in the body (%p)",
    (content) => {
      const body = JSON.stringify({ model: "gpt-4.1", messages: [{ role: "user", content }] });
      const bodyBytes = Buffer.byteLength(body, "utf8");
      expect(estimatePromptTokens(bodyBytes, 1)).toBeGreaterThanOrEqual(Buffer.byteLength(content, "utf8"));
    },
  );
});

describe("outputCeiling", () => {
  // gpt-4.1 allows 32 768 completion tokens.
  test.each([
    ["max_tokens alone", 100, { max_tokens: 100 }],
    ["max_completion_tokens alone", 200, { max_completion_tokens: 200 }],
    ["both: the lower, max_tokens", 100, { max_tokens: 100, max_completion_tokens: 200 }],
    ["both: the lower, max_completion_tokens", 50, { max_tokens: 300, max_completion_tokens: 50 }],
    ["neither: the model's limit", 32_768, {}],
    ["exactly the model's limit", 32_768, { max_tokens: 32_768 }],
    ["above the model's limit: the limit", 32_768, { max_tokens: 200_000 }],
    ["one above the limit under the other name: the limit", 32_768, { max_completion_tokens: 32_769 }],
  ] as const)("%s gives %i", (_title, ceiling, request) => {
    expect(outputCeiling(request, model("gpt-4.1"))).toBe(ceiling);
  });

  test.each([
    ["gpt-5.5", 128_000],
    ["o4-mini", 100_000],
    ["deepseek-v3.2", 8_192],
    ["llama-4-scout", 16_384],
  ] as const)("without a client ceiling %s is capped at its own limit %i", (id, limit) => {
    expect(outputCeiling({}, model(id))).toBe(limit);
  });
});

describe("priceRequest", () => {
  const oneMessage = [{ role: "user", content: "hi" }];

  test.each([
    // gpt-4.1: $2 in, $8 out per million. 193 bytes + 4 + 3 = 200 prompt tokens = 400 000 nano-USD.
    ["gpt-4.1, 100 tokens", "gpt-4.1", { max_tokens: 100 }, 193, 1, 100, 400_000n + 800_000n],
    ["gpt-4.1, 3 choices", "gpt-4.1", { max_tokens: 100 }, 193, 3, 100, 400_000n + 2_400_000n],
    // gpt-5.5: $5 in, $30 out; no ceiling given, so 128 000 output tokens.
    ["gpt-5.5, no ceiling", "gpt-5.5", {}, 193, 1, 128_000, 1_000_000n + 3_840_000_000n],
    // deepseek-v3.2: $0.28 in, $0.42 out; asked 100 000, capped at 8 192.
    ["deepseek-v3.2 above its limit", "deepseek-v3.2", { max_completion_tokens: 100_000 }, 993, 1, 8_192, 280_000n + 3_440_640n],
  ] as const)("%s reserves the exact worst case", (_title, id, ceilings, bodyBytes, choices, ceiling, amount) => {
    const priced = priceRequest({ ...ceilings, messages: oneMessage }, model(id), bodyBytes, choices);
    expect({ ceiling: priced.ceiling, amount: priced.amount }).toEqual({ ceiling, amount: nanos(amount) });
  });

  test.each([
    ["gpt-4.1", { max_tokens: 1 }, 10, 1, 3],
    ["o4-mini", { max_completion_tokens: 4_000 }, 2_048, 4, 1],
    ["kimi-k2.6", {}, 65_536, 100, 2],
    ["llama-3.3-70b-instruct", { max_tokens: 7 }, 0, 1, 1],
  ] as const)("%s: the amount is money.requestCost of the estimated prompt and choices × the ceiling", (id, ceilings, bodyBytes, messageCount, choices) => {
    const m = model(id);
    const messages = Array.from({ length: messageCount }, () => ({ role: "user" }));
    const priced = priceRequest({ ...ceilings, messages }, m, bodyBytes, choices);
    expect(priced.amount).toBe(
      requestCost(estimatePromptTokens(bodyBytes, messageCount), outputCeiling(ceilings, m) * choices, m),
    );
  });

  test("rounds the worst case up once, over prompt and output together", () => {
    // One nano-USD per million tokens: 7 + 10 tokens cost 17e-6 nano-USD, reserved as 1.
    const cheap = { ...model("gpt-4.1"), inputPerMTok: nanos(1), outputPerMTok: nanos(1) };
    expect(priceRequest({ max_tokens: 10, messages: oneMessage }, cheap, 0).amount).toBe(nanos(1));
  });

  test.each([
    ["gpt-4.1", 1, 8_000n],
    ["gpt-4.1", 3, 24_000n],
    ["gpt-5.5", 1, 30_000n],
    ["deepseek-v3.2", 2, 840n],
  ] as const)("%s with %i choices: costOf grows by the output price × choices per token", (id, choices, perToken) => {
    const priced = priceRequest({ messages: oneMessage }, model(id), 500, choices);
    const ceilings = [1, 2, 3, 100, 101, 4_096, priced.ceiling];
    const costs = ceilings.map((c) => priced.costOf(c));
    for (let i = 1; i < ceilings.length; i++) {
      expect(costs[i]! - costs[i - 1]!).toBe(BigInt(ceilings[i]! - ceilings[i - 1]!) * perToken);
    }
    expect(priced.costOf(priced.ceiling)).toBe(priced.amount);
  });

  test("costOf(0) is the prompt alone", () => {
    const priced = priceRequest({ max_tokens: 50, messages: oneMessage }, model("gpt-4.1"), 193);
    expect(priced.costOf(0)).toBe(nanos(400_000n));
  });
});
