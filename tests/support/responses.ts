// Helpers for the Responses API tests: the gateway over one fake provider that speaks both
// dialects, an OpenAI client on it, and the usage a Response carries with its exact charge.
import OpenAI from "openai";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { formatUsd, requestCost } from "../../src/core/money.ts";
import type { FakeResponsesProvider } from "./fake-responses.ts";

/** Every provider pointed at the fake. */
export const responsesEnv = (fake: FakeResponsesProvider): Record<string, string> =>
  Object.fromEntries(
    ["OPENAI", "DEEPSEEK", "MOONSHOT", "XAI", "META"].flatMap((p) => [[`${p}_BASE_URL`, fake.baseUrl], [`${p}_API_KEY`, "sk-test"], [`${p}_ANTHROPIC_BASE_URL`, ""]]),
  );

/** A model forwarded natively (OpenAI's) and one translated to chat completions (DeepSeek's). */
export const NATIVE = "gpt-4.1";
export const TRANSLATED = "deepseek-v3.2";

export const client = (url: string, secret: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: secret, maxRetries: 0 });

export const costOf = (model: string, input: number, output: number, cached = 0) =>
  requestCost(input, output, FALLBACK_CATALOG.find((m) => m.id === model)!, cached);

/** The usage of a Response as the gateway answers it: OpenAI's names and the charge in 9-decimal USD. */
export const responseUsage = (model: string, input: number, output: number, details: { cached?: number; reasoning?: number } = {}) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: details.cached ?? 0 },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: details.reasoning ?? 0 },
  total_tokens: input + output,
  cost_usd: formatUsd(costOf(model, input, output, details.cached), 9),
});

/** POSTs a Responses body (an object, or raw text) to the gateway with a bearer key. */
export function postResponses(baseUrl: string, secret: string | null, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
