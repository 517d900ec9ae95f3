// Fallbacks under load: a dear first model whose provider fails and a cheap second that answers.
import { afterAll } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { providerEnv, startFakeUpstream } from "./fake-upstream.ts";

/** The first candidate (OpenAI's), whose provider the tests make fail. */
export const DEAR = FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1")!;
/** The second candidate (Meta's), cheaper, whose provider answers. */
export const CHEAP = FALLBACK_CATALOG.find((m) => m.id === "llama-4-scout")!;

/**
 * Two fake providers for the test file's lifetime: `failing` stands for OpenAI (DEAR's), and
 * `answering` for every other; `env` points a gateway at them.
 */
export function useFallbackProviders() {
  const failing = startFakeUpstream();
  const answering = startFakeUpstream();
  afterAll(async () => {
    await failing.stop();
    await answering.stop();
  });
  return { failing, answering, env: { ...providerEnv(answering), OPENAI_BASE_URL: failing.baseUrl } };
}
