import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../src/config.ts";
import { FALLBACK_CATALOG, type Model } from "../../../src/core/catalog.ts";
import { AppError, MESSAGES } from "../../../src/core/errors.ts";
import { answerEstimator, ESTIMATOR_MAX_OUTPUT_TOKENS, type AskModel, type ChatTurn, type EstimatorInput } from "../../../src/core/estimator/answer.ts";
import { estimateUsage } from "../../../src/core/estimator/estimate.ts";
import { estimatorSystemPrompt } from "../../../src/core/estimator/prompt.ts";
import type { EstimatorMessage } from "../../../src/core/estimator/request.ts";
import { renderEstimate } from "../../../src/core/estimator/text.ts";

const SDK = "http://127.0.0.1:3000/v1";
const messages: EstimatorMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "a cheap chatbot for 500 users" },
];
const deterministic = renderEstimate(estimateUsage(messages, FALLBACK_CATALOG), SDK);

interface Call {
  model: Model;
  turns: readonly ChatTurn[];
  maxOutputTokens: number;
}

/** Runs the estimator with `ask` as the model, recording its calls and the fallbacks reported. */
function run(ask: AskModel, overrides: Partial<EstimatorInput> = {}) {
  const calls: Call[] = [];
  const fallbacks: string[] = [];
  const deadline = new AbortController();
  const result = answerEstimator({
    messages,
    catalog: FALLBACK_CATALOG,
    sdkBaseUrl: SDK,
    estimatorModelId: "gpt-5.4-mini",
    askModel: (model, turns, options) => {
      calls.push({ model, turns, maxOutputTokens: options.maxOutputTokens });
      return ask(model, turns, options);
    },
    startDeadline: () => deadline.signal,
    onFallback: (reason) => fallbacks.push(reason),
    ...overrides,
  });
  return { result, calls, fallbacks, deadline };
}

const never = () => new Promise<string>(() => {});

describe("answerEstimator", () => {
  test("without an estimator model, answers with the deterministic estimate and calls no model", async () => {
    const { result, calls, fallbacks } = run(async () => "unused", { estimatorModelId: null });
    expect(await result).toBe(deterministic);
    expect(calls).toEqual([]);
    expect(fallbacks).toEqual([]);
  });

  test("asks the estimator model once, with the catalog prompt first, and returns its answer", async () => {
    const { result, calls, fallbacks } = run(async () => "Use llama-4-scout.");
    expect(await result).toBe("Use llama-4-scout.");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.model.id).toBe("gpt-5.4-mini");
    expect(calls[0]?.maxOutputTokens).toBe(ESTIMATOR_MAX_OUTPUT_TOKENS);
    expect(calls[0]?.turns).toEqual([{ role: "system", content: estimatorSystemPrompt(FALLBACK_CATALOG, SDK) }, ...messages]);
    expect(fallbacks).toEqual([]);
  });

  test.each<[string, AskModel]>([
    ["the call fails", async () => Promise.reject(new Error("upstream 500"))],
    ["the answer is blank", async () => "  \n"],
  ])("falls back to the deterministic estimate when %s", async (_, ask) => {
    const { result, fallbacks } = run(ask);
    expect(await result).toBe(deterministic);
    expect(fallbacks).toEqual(["estimator model call failed"]);
  });

  test.each([
    ["not in the catalog", "no-such-model", FALLBACK_CATALOG],
    ["disabled (absent from the enabled catalog)", "gpt-5.4-mini", FALLBACK_CATALOG.filter((m) => m.id !== "gpt-5.4-mini")],
  ])("falls back without a call when the estimator model is %s", async (_, estimatorModelId, catalog) => {
    const { result, calls, fallbacks } = run(async () => "unused", { estimatorModelId, catalog });
    expect(await result).toBe(renderEstimate(estimateUsage(messages, catalog), SDK));
    expect(calls).toEqual([]);
    expect(fallbacks).toEqual([`estimator model ${estimatorModelId} is not an enabled catalog model`]);
  });

  test("answers 504 when the deadline passes, even if the call ignores its signal", async () => {
    const { result, deadline } = run(never);
    deadline.abort(new DOMException("time is up", "TimeoutError"));
    const error = await result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect({ kind: (error as AppError).kind, status: (error as AppError).status, message: (error as AppError).message }).toEqual({
      kind: "timeout",
      status: 504,
      message: MESSAGES.estimatorTimedOut,
    });
  });

  test("answers 504 when the call gives up because its signal aborted", async () => {
    const ask: AskModel = (_model, _turns, { signal }) =>
      new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted"))));
    const { result, deadline, fallbacks } = run(ask);
    deadline.abort();
    expect((await result.catch((e: unknown) => e) as AppError).message).toBe(MESSAGES.estimatorTimedOut);
    expect(fallbacks).toEqual([]);
  });
});

describe("estimatorSystemPrompt", () => {
  const prompt = estimatorSystemPrompt(FALLBACK_CATALOG, SDK);

  test("lists every catalog model with its prices and the credit packs", () => {
    expect(prompt).toContain(
      "- gpt-5.5 (GPT-5.5; frontier; 400000 token context): input $5.0000, output $30.0000 per 1M tokens. " +
        "High-quality reasoning, general production and code review.",
    );
    expect(prompt).toContain("- llama-4-scout (Llama 4 Scout; efficient; 512000 token context): input $0.1000, output $0.3500");
    for (const model of FALLBACK_CATALOG) expect(prompt).toContain(`- ${model.id} (`);
    expect(prompt).toContain("- builder (Builder): pay $25.00, get $30.00 in credits.");
    expect(prompt).toContain("- scale (Scale): pay $200.00, get $250.00 in credits.");
  });

  test("asks for the answer's parts and names the SDK base URL", () => {
    for (const part of ["recommended model ID", "requests per day", "tokens per request", "monthly cost", "credit pack", SDK]) {
      expect(prompt).toContain(part);
    }
  });

  test("lists only the catalog it is given", () => {
    const live = FALLBACK_CATALOG.filter((m) => m.id !== "gpt-4o");
    expect(estimatorSystemPrompt(live, SDK)).not.toContain("- gpt-4o (");
  });
});

describe("ESTIMATOR_TIMEOUT_MS", () => {
  test("defaults to the spec's 120 seconds and can be shortened", () => {
    expect(loadConfig({}).estimatorTimeoutMs).toBe(120_000);
    expect(loadConfig({ ESTIMATOR_TIMEOUT_MS: "50" }).estimatorTimeoutMs).toBe(50);
  });

  test.each(["0", "-1", "1.5", "soon"])("refuses %p", (value) => {
    expect(() => loadConfig({ ESTIMATOR_TIMEOUT_MS: value })).toThrow(ConfigError);
  });
});
