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
