import { describe, expect, test } from "bun:test";
import { FALLBACK_CATALOG, type Model } from "../../../src/core/catalog.ts";
import { estimateUsage, MODEL_PREFERENCES, recommendPack } from "../../../src/core/estimator/estimate.ts";
import type { EstimatorMessage } from "../../../src/core/estimator/request.ts";
import { nanos, parseUsd, type Nanos } from "../../../src/core/money.ts";

const asked = (content: string): EstimatorMessage[] => [{ role: "user", content }];
const usd = (value: string): Nanos => parseUsd(value) as Nanos;
const withPrice = (id: string, input: string, output: string): Model[] =>
  FALLBACK_CATALOG.map((m) => (m.id === id ? { ...m, inputPerMTok: usd(input), outputPerMTok: usd(output) } : m));
const without = (...ids: string[]): Model[] => FALLBACK_CATALOG.filter((m) => !ids.includes(m.id));

describe("the recommended model", () => {
  test.each([
    ["a support chatbot", "gpt-5.4-mini"],
    ["the cheapest chatbot", "llama-4-scout"],
    ["a high volume FAQ bot", "llama-4-scout"],
    ["legal reasoning", "gpt-5.5"],
    ["complex agent workflows", "gpt-5.5"],
    ["code completion", "gpt-5.4-mini"],
  ])("%p → %s", (text, model) => {
    const estimate = estimateUsage(asked(text), FALLBACK_CATALOG);
    expect(estimate.recommended.model.id).toBe(model);
    expect(estimate.preferredModelId).toBe(model);
    expect(estimate.budgetOption).toBeNull();
  });

  test("cheap and complex together: gpt-5.5, with llama-4-scout priced as the budget option", () => {
    const estimate = estimateUsage(asked("a cheap assistant for complex questions"), FALLBACK_CATALOG);
    expect(estimate.intent).toBe("reasoning");
    expect(estimate.recommended.model.id).toBe("gpt-5.5");
    expect(estimate.budgetOption?.model.id).toBe("llama-4-scout");
    // 1,000 requests a day of 1,000 input and 500 output tokens at $0.10 and $0.35 per 1M.
    expect(estimate.budgetOption?.monthly).toBe(usd("8.25"));
  });

  test.each([
    ["the cheapest chatbot", ["llama-4-scout"], "gpt-5.4-nano"],
    ["legal reasoning", ["gpt-5.5"], "gpt-5.4"],
    ["a support chatbot", ["gpt-5.4-mini", "gpt-4.1-mini"], "deepseek-v3.2"],
  ])("%p without %p recommends the stand-in %s and remembers the first choice", (text, missing, standIn) => {
    const estimate = estimateUsage(asked(text), without(...missing));
    expect(estimate.recommended.model.id).toBe(standIn);
    expect(estimate.preferredModelId).toBe(missing[0] as string);
  });

  test("with none of the intent's models enabled, the cheapest model for this usage", () => {
    const estimate = estimateUsage(asked("legal reasoning"), without(...MODEL_PREFERENCES.reasoning));
    // 1,000 input and 500 output tokens: gpt-5.4-nano and gpt-4.1-nano cost $0.0003, llama-4-scout $0.000275.
    expect(estimate.recommended.model.id).toBe("llama-4-scout");
    expect(estimate.preferredModelId).toBe("gpt-5.5");
  });

  test("reads hints from the user's messages only, not from earlier answers or the client's system prompt", () => {
    const estimate = estimateUsage(
      [
        { role: "system", content: "Prefer complex reasoning models. Assume 90,000 requests per day." },
        { role: "user", content: "a support bot" },
        { role: "assistant", content: "Recommended model: llama-4-scout, cheap. Requests per day: 50,000 (code)." },
        { role: "user", content: "for 300 users" },
      ],
      FALLBACK_CATALOG,
    );
    expect(estimate.recommended.model.id).toBe("gpt-5.4-mini");
    expect(estimate.requestsPerDay).toBe(3_000);
    expect([estimate.inputTokens, estimate.outputTokens]).toEqual([1_000, 500]);
  });

  test("refuses to price from an empty catalog", () => {
    expect(() => estimateUsage(asked("hi"), [])).toThrow();
  });
});

describe("tokens per request", () => {
  test.each([
    ["a chatbot", 1_000, 500],
    ["code review", 3_000, 1_500],
    ["document summaries", 8_000, 500],
    ["data analysis", 8_000, 500],
    ["entity extraction", 1_000, 200],
    ["code analysis", 8_000, 1_500],
    ["extract code snippets", 3_000, 200],
    ["extraction from documents", 8_000, 200],
  ])("%p: %d input, %d output", (text, input, output) => {
    const estimate = estimateUsage(asked(text), FALLBACK_CATALOG);
    expect([estimate.inputTokens, estimate.outputTokens]).toEqual([input, output]);
  });
});

describe("monthly cost, exactly from the catalog's prices", () => {
  // Expected values worked by hand from the spec's per-1M prices: 30 days × requests × per request.
  test.each([
    // gpt-5.4-mini $0.40/$1.60: 1,000 × 0.40/1M + 500 × 1.60/1M = $0.0012; × 1,000 × 30.
    ["a support chatbot", "gpt-5.4-mini", 1_000, "0.0012", "36"],
    // llama-4-scout $0.10/$0.35: $0.0001 + $0.000175 = $0.000275; × 5,000 × 30.
    ["a cheap chatbot for 500 users", "llama-4-scout", 5_000, "0.000275", "41.25"],
    // gpt-5.5 $5/$30 with code (3,000 in, 1,500 out): $0.015 + $0.045 = $0.06; × 100 × 30.
    ["complex code generation, 100 requests per day", "gpt-5.5", 100, "0.06", "180"],
    // gpt-5.4-mini, documents and extraction (8,000 in, 200 out): $0.0032 + $0.00032; × 2,000 × 30.
    ["extract fields from documents, 2,000 requests a day", "gpt-5.4-mini", 2_000, "0.00352", "211.2"],
    // llama-4-scout, 1,000,001 a day: $0.000275 × 30,000,030.
    ["high volume: 1,000,001 requests per day", "llama-4-scout", 1_000_001, "0.000275", "8250.00825"],
  ])("%p: %s, %d a day, %s a request, $%s a month", (text, model, perDay, perRequest, monthly) => {
    const estimate = estimateUsage(asked(text), FALLBACK_CATALOG);
    expect(estimate.recommended.model.id).toBe(model);
    expect(estimate.requestsPerDay).toBe(perDay);
    expect(estimate.recommended.perRequest).toBe(usd(perRequest));
    expect(estimate.recommended.monthly).toBe(usd(monthly));
  });

  test("a prompt that repeats (an agent, a long system prompt) is priced with 80% of the input as cache reads, and the month without caching beside it", () => {
    // A coding agent on gpt-5.4-mini ($0.40 in, $0.04 cached, $1.60 out): 3,000 in, 2,400 of them
    // cached, 1,500 out: 600 × 400 + 2,400 × 40 + 1,500 × 1,600 = 2,736,000 nano-USD a request.
    const estimate = estimateUsage(asked("a coding agent, 100 requests a day"), FALLBACK_CATALOG);
    expect([estimate.recommended.model.id, estimate.inputTokens, estimate.cachedTokens]).toEqual(["gpt-5.4-mini", 3_000, 2_400]);
    expect(estimate.recommended.perRequest).toBe(usd("0.002736"));
    expect(estimate.recommended.monthly).toBe(usd("8.208"));
    // Uncached: 3,000 × 400 + 1,500 × 1,600 = 3,600,000 nano-USD a request.
    expect(estimate.recommended.monthlyUncached).toBe(usd("10.8"));
    expect(estimateUsage(asked("a support chatbot"), FALLBACK_CATALOG).cachedTokens).toBe(0);
  });

  test("follows the catalog it is given, not the built-in prices", () => {
    // $0.50/$2.00: $0.0005 + $0.001 = $0.0015 a request; × 1,000 × 30 = $45.
    const estimate = estimateUsage(asked("a support chatbot"), withPrice("gpt-5.4-mini", "0.50", "2.00"));
    expect(estimate.recommended.perRequest).toBe(usd("0.0015"));
    expect(estimate.recommended.monthly).toBe(usd("45"));
  });

  test("rounds each request up to the nano-USD, as billing does, before multiplying", () => {
    // 1,000 tokens at 1 nano-USD per 1M is a thousandth of a nano-USD: charged as 1.
    const estimate = estimateUsage(asked("a support chatbot"), withPrice("gpt-5.4-mini", "0.000000001", "0"));
    expect(estimate.recommended.perRequest).toBe(nanos(1));
    expect(estimate.recommended.monthly).toBe(nanos(30_000));
  });
});

describe("recommendPack", () => {
  test.each<[string, string, number]>([
    ["0", "builder", 1],
    ["30", "builder", 1],
    ["30.000000001", "pro", 1],
    ["60", "pro", 1],
    ["120", "team", 1],
    ["120.5", "scale", 1],
    ["250", "scale", 1],
    ["250.000000001", "scale", 2],
    ["8250", "scale", 33],
    ["8250.00825", "scale", 34],
  ])("$%s a month: %s × %d", (monthly, pack, count) => {
    const advice = recommendPack(usd(monthly));
    expect({ pack: advice.pack.id as string, count: advice.count }).toEqual({ pack, count });
  });

  test("is what the estimate recommends", () => {
    const estimate = estimateUsage(asked("a support chatbot"), FALLBACK_CATALOG);
    expect(estimate.pack).toEqual(recommendPack(usd("36")));
  });
});
