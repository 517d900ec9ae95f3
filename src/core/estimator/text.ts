import { REQUESTS_PER_USER_PER_DAY, type Volume } from "./hints.ts";
import { DAYS_PER_MONTH, type Estimate, type PackAdvice, type PricedModel } from "./estimate.ts";
import { formatUsd, nanos, parseUsd, ZERO, type Nanos } from "../money.ts";
import type { CreditPack } from "../checkout/packs.ts";

const groupThousands = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
const count = (n: number): string => groupThousands(String(n));

/** An amount exactly, to the nano-USD, with at least cents shown: $180.00, $0.0012, $1,234.5. */
export function usd(amount: Nanos): string {
  const [whole = "0", fraction = ""] = formatUsd(amount, 9).split(".");
  return `$${groupThousands(whole)}.${fraction.replace(/0+$/, "").padEnd(2, "0")}`;
}

function volumeNote(volume: Volume, working: string | null): string {
  switch (volume.basis) {
    case "stated":
      return working === null ? "from the volume you described" : `assumed from ${working}`;
    case "users":
      return `${count(volume.users)} users × ${REQUESTS_PER_USER_PER_DAY} requests each`;
    case "assumed":
      return "no volume was mentioned, so this is an assumption; the cost scales with it";
  }
}

const prices = ({ model }: PricedModel): string =>
  `${usd(model.inputPerMTok)} input and ${usd(model.outputPerMTok)} output per 1M tokens`;

const times = (amount: Nanos, n: number): Nanos => nanos(amount * BigInt(n));

/** What `n` of a pack cost and give: "pay $50.00, get $60.00 in credits". */
export function packTerms(pack: CreditPack, n = 1): string {
  const price = parseUsd(pack.priceUsd) ?? ZERO;
  return `pay ${usd(times(price, n))}, get ${usd(times(pack.credits, n))} in credits`;
}

function packLine({ pack, count: packs }: PackAdvice): string {
  if (packs === 1) return `${pack.name} (${packTerms(pack)}), which covers a month of this usage.`;
  return `${packs} × ${pack.name} a month (${packTerms(pack, packs)}).`;
}

/** What the estimate assumed of prompt caching, and what it is worth. */
function cachingLine({ cachedTokens, recommended }: Estimate): string {
  const cachedPrice = recommended.model.cachedInputPerMTok ?? recommended.model.inputPerMTok;
  return `Prompt caching: a prompt that repeats with every request is mostly read from the provider's cache, so this assumes ` +
    `${count(cachedTokens)} of the input tokens are cache reads at ${usd(cachedPrice)} per 1M; without caching the month would cost ` +
    `${usd(recommended.monthlyUncached)}.`;
}

/** The deterministic estimate as the estimator's answer text. */
export function renderEstimate(estimate: Estimate, sdkBaseUrl: string): string {
  const { recommended, budgetOption, requestsPerDay } = estimate;
  const { model } = recommended;
  const substituted = model.id === estimate.preferredModelId
    ? ""
    : ` (${estimate.preferredModelId} would fit best but is not available on this gateway right now)`;
  const lines = [
    `Recommended model: ${model.id} (${model.displayName}): ${model.useCaseHint}${substituted}.`,
    `Requests per day: ${count(requestsPerDay)} (${volumeNote(estimate.hints.volume, estimate.volumeWorking)}).`,
    `Tokens per request: about ${count(estimate.inputTokens)} input and ${count(estimate.outputTokens)} output.`,
    ...(estimate.cachedTokens > 0 ? [cachingLine(estimate)] : []),
    `Monthly cost: ${usd(recommended.monthly)} (${DAYS_PER_MONTH} days × ${count(requestsPerDay)} requests × ` +
      `${usd(recommended.perRequest)} per request, at ${prices(recommended)}).`,
    ...(budgetOption
      ? [`Budget option: ${budgetOption.model.id} would cost ${usd(budgetOption.monthly)} a month (${prices(budgetOption)}), ` +
        "but it is not built for complex reasoning."]
      : []),
    `Recommended credit pack: ${packLine(estimate.pack)}`,
    `Integration: point any OpenAI SDK at ${sdkBaseUrl} with a gateway API key (it starts with gw-) and set model to "${model.id}".`,
    "This is an estimate, not a billing record: each request is charged for the tokens its provider reports.",
  ];
  return lines.join("\n");
}

/** The estimator's response body: the spec's `choices[0].message` carrying the answer text. */
export const estimatorReply = (content: string) => ({
  choices: [{ index: 0, message: { role: "assistant" as const, content }, finish_reason: "stop" as const }],
});
