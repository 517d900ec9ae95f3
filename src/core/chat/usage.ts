// What a provider says a request used, read from its answer or stream.

/** Token counts as the provider reported them, in OpenAI's meaning. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The provider-reported usage, or null when it is missing or malformed. */
export function readUsage(value: unknown): Usage | null {
  if (typeof value !== "object" || value === null) return null;
  const { prompt_tokens, completion_tokens } = value as Record<string, unknown>;
  if (!isCount(prompt_tokens) || !isCount(completion_tokens)) return null;
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}
