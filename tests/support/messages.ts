// Helpers for the Messages API tests: the gateway over the fake provider with DeepSeek's and
// Moonshot's Anthropic API pointed at it too, an Anthropic client on it, and the usage a
// Message carries with its exact charge.
import Anthropic from "@anthropic-ai/sdk";
import { formatUsd } from "../../src/core/money.ts";
import type { FakeResponsesProvider } from "./fake-responses.ts";
import { costOf, responsesEnv } from "./responses.ts";

/** Every provider pointed at the fake; DeepSeek's and Moonshot's Anthropic API too (the fake serves /v1/messages). */
export const messagesEnv = (fake: FakeResponsesProvider): Record<string, string> => {
  const root = fake.baseUrl.replace(/\/v1$/, "");
  return { ...responsesEnv(fake), DEEPSEEK_ANTHROPIC_BASE_URL: root, MOONSHOT_ANTHROPIC_BASE_URL: root };
};

/** A model forwarded to an Anthropic API (DeepSeek's) and one translated to chat completions (OpenAI's). */
export const ANTHROPIC_NATIVE = "deepseek-v3.2";
export const ANTHROPIC_TRANSLATED = "gpt-4.1";

export const anthropic = (url: string, secret: string) => new Anthropic({ baseURL: url, apiKey: secret, maxRetries: 0 });

/** The usage of a Message as the gateway answers it: Anthropic's names and the charge in 9-decimal USD. */
export const messageUsage = (model: string, u: { input: number; output: number; cached?: number; cacheWrites?: number }) => ({
  input_tokens: u.input - (u.cached ?? 0) - (u.cacheWrites ?? 0),
  cache_creation_input_tokens: u.cacheWrites ?? 0,
  cache_read_input_tokens: u.cached ?? 0,
  output_tokens: u.output,
  cost_usd: formatUsd(costOf(model, u.input, u.output, u.cached), 9),
});

/** POSTs a Messages body (an object, or raw text) to the gateway with the key in `x-api-key`. */
export function postMessages(baseUrl: string, secret: string | null, body: unknown, headers: Record<string, string> = {}, path = "/v1/messages"): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...(secret ? { "x-api-key": secret } : {}), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
