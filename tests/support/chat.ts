/** POSTs a chat body (an object, or raw text) to the gateway with a bearer key. */
export function postChat(baseUrl: string, secret: string | null, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(secret ? { authorization: `Bearer ${secret}` } : {}), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export const hello = (model = "gpt-4.1-nano", extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content: "hello" }],
  max_tokens: 16,
  ...extra,
});

/** The spec's chat error body for `status`, with the message left to the caller to check. */
export const chatErrorShape = (status: number, type: string) => ({
  error: { message: expectString, type, code: String(status) },
});

// expect.any(String) typed loosely so the shape can sit inside toEqual.
const expectString = (await import("bun:test")).expect.any(String) as unknown as string;

/** The usage a client sees: normalised counts, their details, and the exact charge as 9-decimal USD. */
export const wireUsage = (
  promptTokens: number,
  completionTokens: number,
  costNanos: bigint,
  details: { cached?: number; reasoning?: number } = {},
) => ({
  prompt_tokens: promptTokens,
  completion_tokens: completionTokens,
  total_tokens: promptTokens + completionTokens,
  prompt_tokens_details: { cached_tokens: details.cached ?? 0 },
  completion_tokens_details: { reasoning_tokens: details.reasoning ?? 0 },
  cost_usd: `${costNanos / 1_000_000_000n}.${String(costNanos % 1_000_000_000n).padStart(9, "0")}`,
});
