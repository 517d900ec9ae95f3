// Pricing a chat request: the output ceiling, an upper bound on the prompt, and what both may
// cost at the model's sell prices. The reservation is this worst case; the charge is the usage.
import type { Model } from "../catalog.ts";
import { requestCost, type Nanos } from "../money.ts";
import type { ChatRequest } from "./request.ts";

/** Tokens a provider adds around each message (role markers, separators) and to prime the reply. */
const PER_MESSAGE_OVERHEAD = 4;
const REPLY_PRIMING = 3;

/**
 * An upper bound on the prompt tokens of a request, from the size of its JSON body.
 *
 * Every provider here tokenizes with byte-level BPE, where each token stands for at least one
 * byte of UTF-8 text, so a prompt never has more tokens than its text has bytes. The JSON body
 * holds all of that text (escaping only adds bytes) plus field names and punctuation, so its
 * byte length bounds the text's tokens; the per-message overhead covers the chat template.
 * The bound errs high, as a reservation must; the charge uses the provider's reported count.
 */
export function estimatePromptTokens(bodyBytes: number, messageCount: number): number {
  return bodyBytes + PER_MESSAGE_OVERHEAD * messageCount + REPLY_PRIMING;
}

/**
 * English text and code average about four bytes of UTF-8 per token in the providers' BPE
 * vocabularies: a near estimate of a prompt, where the reservation's bound above would be too high.
 */
export const BYTES_PER_TYPICAL_TOKEN = 4;

/** A near estimate of a request's prompt tokens (for a context window), from its body's size. */
export const typicalPromptTokens = (bodyBytes: number, messageCount: number): number =>
  Math.ceil(bodyBytes / BYTES_PER_TYPICAL_TOKEN) + PER_MESSAGE_OVERHEAD * messageCount;

/** The completion-token ceiling: what the client allows, never above what the model allows. */
export function outputCeiling(request: Pick<ChatRequest, "max_tokens" | "max_completion_tokens">, model: Model): number {
  const asked = [request.max_tokens, request.max_completion_tokens].filter((n): n is number => n !== undefined);
  return Math.min(model.maxOutputTokens, ...asked);
}

export interface Priced {
  /** Completion tokens per choice that the provider is asked for at most. */
  ceiling: number;
  /** The reservation: the estimated prompt and `choices` × the ceiling at sell prices. */
  amount: Nanos;
  /** What the reservation would be with another ceiling (for "the largest max_tokens that fits"). */
  costOf(ceiling: number): Nanos;
}

/** Prices the worst case of a request whose body is `bodyBytes` long and asks for `choices` completions. */
export function priceRequest(
  request: Pick<ChatRequest, "max_tokens" | "max_completion_tokens"> & { messages: readonly unknown[] },
  model: Model,
  bodyBytes: number,
  choices = 1,
): Priced {
  const ceiling = outputCeiling(request, model);
  const promptTokens = estimatePromptTokens(bodyBytes, request.messages.length);
  const costOf = (c: number) => requestCost(promptTokens, c * choices, model);
  return { ceiling, amount: costOf(ceiling), costOf };
}

/**
 * The price of the dearest of several candidates (each already priced): the one reservation a
 * request with fallbacks holds covers whichever of them answers.
 */
export function dearest(prices: readonly Priced[]): Priced {
  if (prices.length === 1) return prices[0]!;
  const top = prices.reduce((a, b) => (b.amount > a.amount ? b : a));
  const costOf = (c: number) => prices.reduce((most, p) => { const cost = p.costOf(c); return cost > most ? cost : most; }, prices[0]!.costOf(c));
  return { ceiling: top.ceiling, amount: top.amount, costOf };
}
