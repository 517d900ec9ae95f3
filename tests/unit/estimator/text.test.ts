import { describe, expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../../src/core/catalog.ts";
import { estimateUsage } from "../../../src/core/estimator/estimate.ts";
import { estimatorReply, renderEstimate, usd } from "../../../src/core/estimator/text.ts";
import { nanos } from "../../../src/core/money.ts";

const SDK = "https://gateway.example/api/v1";
const answer = (content: string, catalog = FALLBACK_CATALOG) =>
  renderEstimate(estimateUsage([{ role: "user", content }], catalog), SDK).split("\n");

describe("usd", () => {
  test.each([
    [0n, "$0.00"],
    [1n, "$0.000000001"],
    [1_200_000n, "$0.0012"],
    [36_000_000_000n, "$36.00"],
    [41_250_000_000n, "$41.25"],
    [8_250_008_250_000n, "$8,250.00825"],
    [1_234_567_000_000_000n, "$1,234,567.00"],
  ])("%p nano-USD is %s", (amount, text) => {
    expect(usd(nanos(amount))).toBe(text);
  });
});

describe("renderEstimate", () => {
  test("names the model, volume, tokens, monthly cost, credit pack and integration, line by line", () => {
    expect(answer("A cheap chatbot for 500 users")).toEqual([
      "Recommended model: llama-4-scout (Llama 4 Scout): High-volume low-cost chat.",
      "Requests per day: 5,000 (500 users × 10 requests each).",
      "Tokens per request: about 1,000 input and 500 output.",
      "Monthly cost: $41.25 (30 days × 5,000 requests × $0.000275 per request, at $0.10 input and $0.35 output per 1M tokens).",
      "Recommended credit pack: Pro (pay $50.00, get $60.00 in credits), which covers a month of this usage.",
      `Integration: point any OpenAI SDK at ${SDK} with a gateway API key (it starts with gw-) and set model to "llama-4-scout".`,
      "This is an estimate, not a billing record: each request is charged for the tokens its provider reports.",
    ]);
  });

  test("says what it assumed of prompt caching, and what the month would cost without it", () => {
    expect(answer("a coding agent, 100 requests a day")[3]).toBe(
      "Prompt caching: a prompt that repeats with every request is mostly read from the provider's cache, so this assumes " +
        "2,400 of the input tokens are cache reads at $0.04 per 1M; without caching the month would cost $10.80.",
    );
    expect(answer("A cheap chatbot for 500 users").some((line) => line.startsWith("Prompt caching"))).toBe(false);
  });

  test("says where the volume came from", () => {
    expect(answer("10k requests per day")[1]).toBe("Requests per day: 10,000 (from the volume you described).");
    expect(answer("a bot")[1]).toBe(
      "Requests per day: 1,000 (no volume was mentioned, so this is an assumption; the cost scales with it).",
    );
  });

  test("prices the budget option when both low cost and reasoning are asked for", () => {
    expect(answer("cheap but complex")[4]).toBe(
      "Budget option: llama-4-scout would cost $8.25 a month ($0.10 input and $0.35 output per 1M tokens), " +
        "but it is not built for complex reasoning.",
    );
  });

  test("counts the largest packs needed when none covers a month", () => {
    // gpt-5.4-mini: $0.0012 × 200,000 × 30 = $7,200 = 28.8 Scale packs.
    expect(answer("200k requests per day")).toContain(
      "Recommended credit pack: 29 × Scale a month (pay $5,800.00, get $7,250.00 in credits).",
    );
  });

  test("says when the first choice is not available and recommends the stand-in", () => {
    const catalog = FALLBACK_CATALOG.filter((m) => m.id !== "gpt-5.5");
    expect(answer("complex reasoning", catalog)[0]).toBe(
      "Recommended model: gpt-5.4 (GPT-5.4): Demanding production work at a lower price than GPT-5.5 " +
        "(gpt-5.5 would fit best but is not available on this gateway right now).",
    );
  });
});

test("estimatorReply wraps the text as the spec's choices[0].message", () => {
  expect(estimatorReply("text")).toEqual({
    choices: [{ index: 0, message: { role: "assistant", content: "text" }, finish_reason: "stop" }],
  });
});
