import { h } from "../dom.ts";
import { basePath } from "../env.ts";

/** One way to use a key, as the setting it takes and a snippet to copy. */
const client = (title: string, intro: string, snippet: string) =>
  h("div", { class: "client-setup" }, h("h3", {}, title), h("p", {}, intro), h("pre", {}, h("code", {}, snippet)));

/**
 * How to point the clients people use at this gateway with a key: the OpenAI SDKs at `/v1`,
 * Claude Code and the Anthropic SDKs at the gateway's own address (they add `/v1/messages`),
 * Codex CLI, opencode and pi through a provider of their own.
 */
export function clientSetup(): HTMLElement {
  const base = `${location.origin}${basePath}`;
  return h("section", { class: "card", "aria-labelledby": "use-a-key" },
    h("h2", { id: "use-a-key" }, "Use a key"),
    client("OpenAI SDKs, the Vercel AI SDK, LangChain", "Set the base URL and use the key as the API key.",
      `const client = new OpenAI({ baseURL: "${base}/v1", apiKey: "gw-…" });`),
    client("Claude Code", "Any catalog model works; requests are charged like any other and show in Usage.",
      `export ANTHROPIC_BASE_URL=${base}\nexport ANTHROPIC_AUTH_TOKEN=gw-…\nexport ANTHROPIC_MODEL=deepseek-v4-pro\nexport ANTHROPIC_SMALL_FAST_MODEL=deepseek-v4-flash\nclaude`),
    client("Codex CLI", "Declare the gateway as a provider in ~/.codex/config.toml, then export the key.",
      `model = "gpt-5.5"\nmodel_provider = "gateway"\n\n[model_providers.gateway]\nname = "gateway"\nbase_url = "${base}/v1"\nenv_key = "GATEWAY_API_KEY"`),
    client("opencode", "Add the gateway as a provider in ~/.config/opencode/opencode.json, then export the key.",
      `{\n  "model": "gateway/deepseek-v4-pro",\n  "provider": {\n    "gateway": {\n      "npm": "@ai-sdk/openai-compatible",\n      "options": { "baseURL": "${base}/v1", "apiKey": "{env:GATEWAY_API_KEY}" },\n      "models": { "deepseek-v4-pro": { "tool_call": true } }\n    }\n  }\n}`),
    client("pi", "Add the gateway as a provider in ~/.pi/agent/models.json, then run pi --provider gateway --model deepseek-v4-pro.",
      `{\n  "providers": {\n    "gateway": {\n      "baseUrl": "${base}/v1",\n      "api": "openai-completions",\n      "apiKey": "GATEWAY_API_KEY",\n      "models": [{ "id": "deepseek-v4-pro", "reasoning": true }]\n    }\n  }\n}`),
    client("Anthropic SDKs", "Set the base URL and use the key as the API key.",
      `const client = new Anthropic({ baseURL: "${base}", apiKey: "gw-…" });`),
  );
}
