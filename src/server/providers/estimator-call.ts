// The estimator's one upstream call: a non-streaming completion through the shared adapter,
// with the same per-family quirks as the chat path.
import type { ProviderConfig } from "../../config.ts";
import type { Provider } from "../../core/catalog.ts";
import type { AskModel } from "../../core/estimator/answer.ts";
import { quirksOf } from "../../core/chat/families.ts";
import { readUpstreamJson, send } from "./openai-compatible.ts";

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
    const body = { model: model.upstreamModel, messages, [quirksOf(model).tokenParam]: maxOutputTokens };
    // The estimator's one call uses the provider's first key; chat requests rotate over them all.
    const provider = providers[model.provider];
    const response = await send(provider.baseUrl, provider.apiKeys[0], body, signal);
    if (!response.ok) throw new Error(`the estimator model's provider answered ${response.status}`);
    const text = completionText(await readUpstreamJson(response));
    if (text === null) throw new Error("the estimator model's answer has no message content");
    return text;
  };
