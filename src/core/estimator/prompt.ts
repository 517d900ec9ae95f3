import type { Model } from "../catalog.ts";
import { DAYS_PER_MONTH } from "./estimate.ts";
import { formatUsd } from "../money.ts";
import { CREDIT_PACKS } from "../checkout/packs.ts";
import { packTerms } from "./text.ts";

const modelLine = (m: Model): string =>
  `- ${m.id} (${m.displayName}; ${m.category}; ${m.contextWindow} token context): ` +
  `input $${formatUsd(m.inputPerMTok, 4)}, output $${formatUsd(m.outputPerMTok, 4)} per 1M tokens. ${m.useCaseHint}.`;

/**
 * The system prompt of the estimator model: its task, the answer's required parts, and the
 * live catalog's prices and the credit packs, so that it recommends only what can be bought here.
 */
export function estimatorSystemPrompt(catalog: readonly Model[], sdkBaseUrl: string): string {
  const packs = Object.values(CREDIT_PACKS).map((p) => `- ${p.id} (${p.name}): ${packTerms(p)}.`);
  return [
    "You are the pricing estimator of a prepaid-credit API gateway for chat-completion models.",
    "From the user's description of their application, recommend one model from the catalog below and estimate what it costs.",
    "Answer in plain text, briefly, and always give:",
    "1. the recommended model ID;",
    "2. the requests per day you assume;",
    "3. the tokens per request, input and output;",
    `4. the monthly cost over ${DAYS_PER_MONTH} days, computed from the prices below (cost = tokens / 1,000,000 × price per 1M);`,
    "5. the recommended credit pack: the smallest one whose credits cover a month, or how many of the largest;",
    `6. how to integrate: point any OpenAI SDK at ${sdkBaseUrl} with a gateway API key (it starts with gw-) and set the model ID.`,
    "Recommend only models listed here. Say that the figures are estimates: each request is charged for the tokens its provider reports.",
    "Decline anything that is not about choosing a model or estimating costs on this gateway.",
    "",
    "Models (USD per 1M tokens):",
    ...catalog.map(modelLine),
    "",
    "Credit packs:",
    ...packs,
  ].join("\n");
}
