// The estimator's one upstream call: a minimal non-streaming OpenAI-compatible completion.
// Stands in until the shared provider adapter (openai-compatible.ts) offers a non-streaming
// completion that returns text; then this file should become a call to it.
import type { ProviderConfig } from "../../config.ts";
import type { Provider } from "../../core/catalog.ts";
import type { AskModel } from "../../core/estimator.ts";

/** The answer's text in an OpenAI-style completion body, or null when it has none. */
function completionText(body: unknown): string | null {
  const choices = (body as { choices?: unknown } | null)?.choices;
  const content = Array.isArray(choices) ? (choices[0] as { message?: { content?: unknown } } | undefined)?.message?.content : undefined;
  return typeof content === "string" ? content : null;
}

/** Asks a catalog model through its provider's OpenAI-compatible API (`{baseUrl}/chat/completions`). */
export const estimatorCall =
  (providers: Record<Provider, ProviderConfig>): AskModel =>
  async (model, messages, { signal, maxOutputTokens }) => {
    const provider = providers[model.provider];
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
    // OpenAI's GPT-5 and o-series refuse `max_tokens`; every OpenAI chat model takes `max_completion_tokens`.
    const ceiling = model.provider === "openai" ? "max_completion_tokens" : "max_tokens";
    const response = await fetch(`${provider.baseUrl}/chat/completions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: model.upstreamModel, messages, [ceiling]: maxOutputTokens }),
      signal,
    });
    if (!response.ok) throw new Error(`the estimator model's provider answered ${response.status}`);
    const text = completionText(await response.json());
    if (text === null) throw new Error("the estimator model's answer has no message content");
    return text;
  };
