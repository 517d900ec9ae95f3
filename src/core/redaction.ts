// Secrets in text the gateway did not write: a provider's error message may quote the
// request's `Authorization` header or the key itself, and that text reaches clients and logs.

/** What stands in for a secret that was taken out. */
export const REDACTED = "[redacted]";

// `Bearer <token>` in any case, the token up to the next space, quote or separator.
const BEARER_TOKEN = /\bBearer\s+[^\s"'`\\,;]+/gi;
// What looks like a provider's or the gateway's secret: `sk-…` (OpenAI, DeepSeek, Moonshot,
// Anthropic's `sk-ant-…`), `xai-…`, `gw-…`, long enough not to be a word. A key prefix the
// gateway shows (`gw-` and 7 characters) is shorter.
const SECRET_LOOKING = /\b(?:sk|xai|gw)-[A-Za-z0-9_-]{16,}/g;

/**
 * `text` with every one of `secrets` (the configured provider keys) replaced, longest first so
 * that a key containing another is taken out whole. Exact strings only: this runs on every log
 * line, which must otherwise stay as written.
 */
export function redactConfigured(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret !== "" && redacted.includes(secret)) redacted = redacted.replaceAll(secret, REDACTED);
  }
  return redacted;
}

/** Longest first, empties left out: the order `redactConfigured` wants. */
export const secretsInOrder = (secrets: readonly string[]): string[] =>
  [...new Set(secrets.filter((s) => s !== ""))].sort((a, b) => b.length - a.length);

/**
 * Provider text made fit for a client: the configured keys, any bearer token and anything
 * shaped like an API key taken out.
 */
export function redactProviderText(text: string, secrets: readonly string[]): string {
  return redactConfigured(text, secrets).replace(BEARER_TOKEN, `Bearer ${REDACTED}`).replace(SECRET_LOOKING, REDACTED);
}
