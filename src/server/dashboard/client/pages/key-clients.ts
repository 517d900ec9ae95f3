import { copyText } from "../copy.ts";
import { h } from "../dom.ts";
import { basePath } from "../env.ts";

// How to call the gateway from the clients people use, each as a snippet with its own Copy
// button: the OpenAI SDKs and curl at `/v1`, Claude Code and the Anthropic SDKs at the gateway's
// own address (they add `/v1/messages`), Codex CLI, opencode and pi through a provider of their
// own. The key just created is filled in while its panel is open; otherwise a placeholder.
// The JavaScript snippets use require(): an ES import in the bundle's text would look like an
// import the bundler left behind, which the served script must never hold.

const PLACEHOLDER = "gw-…";

interface Client {
  title: string;
  intro: string;
  snippet(base: string, key: string): string;
}

const CLIENTS: Client[] = [
  {
    title: "curl", intro: "A first request from a terminal.",
    snippet: (base, key) => `curl ${base}/v1/chat/completions \\\n  -H "Authorization: Bearer ${key}" \\\n  -H "Content-Type: application/json" \\\n  -d '{"model": "gpt-5.5", "messages": [{"role": "user", "content": "Hello"}]}'`,
  },
  {
    title: "OpenAI SDK for Python", intro: "Set the base URL and use the key as the API key.",
    snippet: (base, key) => `from openai import OpenAI\n\nclient = OpenAI(base_url="${base}/v1", api_key="${key}")\nreply = client.chat.completions.create(model="gpt-5.5", messages=[{"role": "user", "content": "Hello"}])\nprint(reply.choices[0].message.content)`,
  },
  {
    title: "OpenAI SDK for JavaScript", intro: "The same for the JavaScript SDK, the Vercel AI SDK and LangChain.",
    snippet: (base, key) => `const OpenAI = require("openai");\n\nconst client = new OpenAI({ baseURL: "${base}/v1", apiKey: "${key}" });`,
  },
  {
    title: "Anthropic SDK", intro: "Set the base URL (without /v1) and use the key as the API key.",
    snippet: (base, key) => `const Anthropic = require("@anthropic-ai/sdk");\n\nconst client = new Anthropic({ baseURL: "${base}", apiKey: "${key}" });`,
  },
  {
    title: "Claude Code", intro: "Any catalog model works; requests are charged like any other and show in Usage.",
    snippet: (base, key) => `export ANTHROPIC_BASE_URL=${base}\nexport ANTHROPIC_AUTH_TOKEN=${key}\nexport ANTHROPIC_MODEL=deepseek-v4-pro\nexport ANTHROPIC_SMALL_FAST_MODEL=deepseek-v4-flash\nclaude`,
  },
  {
    title: "Codex CLI", intro: "Declare the gateway as a provider in ~/.codex/config.toml, then export the key.",
    snippet: (base, key) => `model = "gpt-5.5"\nmodel_provider = "gateway"\n\n[model_providers.gateway]\nname = "gateway"\nbase_url = "${base}/v1"\nenv_key = "GATEWAY_API_KEY"\n\n# in the shell:\n# export GATEWAY_API_KEY=${key}`,
  },
  {
    title: "opencode", intro: "Add the gateway as a provider in ~/.config/opencode/opencode.json.",
    snippet: (base, key) => `{\n  "model": "gateway/deepseek-v4-pro",\n  "provider": {\n    "gateway": {\n      "npm": "@ai-sdk/openai-compatible",\n      "options": { "baseURL": "${base}/v1", "apiKey": "${key}" },\n      "models": { "deepseek-v4-pro": { "tool_call": true } }\n    }\n  }\n}`,
  },
  {
    title: "pi", intro: "Add the gateway as a provider in ~/.pi/agent/models.json, then run pi --provider gateway --model deepseek-v4-pro.",
    snippet: (base, key) => `{\n  "providers": {\n    "gateway": {\n      "baseUrl": "${base}/v1",\n      "api": "openai-completions",\n      "apiKey": "${key}",\n      "models": [{ "id": "deepseek-v4-pro", "reasoning": true }]\n    }\n  }\n}`,
  },
];

/** One client's snippet with its Copy button, redrawn with a key. */
function clientBlock(client: Client, base: string): { element: HTMLElement; fill(key: string): void } {
  const code = h("code", {});
  const said = h("span", { class: "muted", "aria-live": "polite" });
  const copy = h("button", { type: "button", class: "button secondary copy-snippet", "aria-label": `Copy the ${client.title} snippet` }, "Copy");
  copy.addEventListener("click", async () => {
    said.textContent = (await copyText(code.textContent ?? "", code)) ? "Copied." : "Select the text and copy it with Ctrl+C or ⌘C.";
  });
  return {
    element: h("div", { class: "client-setup" },
      h("div", { class: "client-head" }, h("h3", {}, client.title), copy, said),
      h("p", {}, client.intro),
      h("pre", {}, code)),
    fill: (key) => {
      code.textContent = client.snippet(base, key);
      said.textContent = "";
    },
  };
}

/** The quickstart section, and a way to fill in a new key (null: back to the placeholder). */
export function clientSetup(): { element: HTMLElement; showKey(key: string | null): void } {
  const base = `${location.origin}${basePath}`;
  const blocks = CLIENTS.map((client) => clientBlock(client, base));
  const note = h("p", {});
  const showKey = (key: string | null) => {
    for (const block of blocks) block.fill(key ?? PLACEHOLDER);
    note.replaceChildren(key === null
      ? `Replace ${PLACEHOLDER} with one of your keys, or create one: it is filled in here while it is shown.`
      : "Filled in with the key you just created. Copy what you need before you press Done.");
  };
  showKey(null);
  return {
    element: h("section", { class: "card", "aria-labelledby": "use-a-key" }, h("h2", { id: "use-a-key" }, "Use a key"), note, blocks.map((b) => b.element)),
    showKey,
  };
}
