// What a model can take beyond text, as data: a request that needs it skips a candidate that
// cannot (DESIGN, "Fallbacks"). Matched against the provider's own model name, as families.ts is.
import type { Model } from "../catalog.ts";

// Image input, per the providers' model pages: OpenAI's GPT-4o, GPT-4.1, GPT-5 and o-series;
// xAI's Grok 4 line; Moonshot's Kimi K2.5 and later (natively multimodal); Meta's Llama 4. DeepSeek's
// chat models and Llama 3.3 read text only.
const TAKES_IMAGES: Readonly<Record<Model["provider"], RegExp | null>> = {
  openai: /^(gpt-4o|gpt-4\.1|gpt-5|o\d)/,
  xai: /^grok-4/,
  moonshot: /^kimi-k2\.[5-9]/,
  meta: /^Llama-4/,
  deepseek: null,
};

// Function calling: every catalog model but DeepSeek's V3.2 Speciale, which DeepSeek serves
// without tool calls (api-docs.deepseek.com, the V3.2 release notes).
const NO_TOOLS: Readonly<Record<Model["provider"], RegExp | null>> = {
  openai: null,
  xai: null,
  moonshot: null,
  meta: null,
  deepseek: /speciale/,
};

export const takesImages = (model: Model): boolean => TAKES_IMAGES[model.provider]?.test(model.upstreamModel) ?? false;

export const takesTools = (model: Model): boolean => !(NO_TOOLS[model.provider]?.test(model.upstreamModel) ?? false);
