import type { Config } from "../../config.ts";
import { parseUsd } from "../../core/money.ts";
import { CREDIT_PACKS, PACK_IDS, type CreditPack } from "../../core/checkout/packs.ts";
import { probe, type Check } from "./check.ts";

const STRIPE_API = "https://api.stripe.com";
const NANOS_PER_CENT = 10_000_000n;

/**
 * Stripe is optional: without STRIPE_SECRET_KEY checkout answers 503 and credits come only from
 * the CLI. Once a key is set, the webhook secret and every pack's price are required. Online,
 * the key and each price are looked up (reads only).
 */
export async function checkStripe(stripe: Config["stripe"], offline: boolean): Promise<Check[]> {
  if (stripe.secretKey === undefined) {
    return [{
      name: "stripe",
      status: "warn",
      message: "STRIPE_SECRET_KEY is not set: POST /checkout answers 503 for every pack; credits can only be granted with `gateway credits grant`",
    }];
  }
  const api = stripe.apiBase ?? STRIPE_API;
  const secretKey = stripe.secretKey;
  const webhook: Check = stripe.webhookSecret === undefined
    ? { name: "stripe webhook", status: "fail", message: "STRIPE_WEBHOOK_SECRET is not set: Stripe's payment events cannot be verified, so paid checkouts are never credited" }
    : { name: "stripe webhook", status: "ok", message: "STRIPE_WEBHOOK_SECRET is set" };
  const key = offline ? { name: "stripe", status: "skip", message: "STRIPE_SECRET_KEY is set; Stripe not contacted (--offline)" } as const : await checkKey(api, secretKey);
  const skipLookup = offline ? "--offline" : key.status === "fail" ? "the key does not work" : null;
  const prices = await Promise.all(PACK_IDS.map((id) => checkPrice(CREDIT_PACKS[id], stripe.prices[id], api, secretKey, skipLookup)));
  return [key, webhook, ...prices];
}

async function checkKey(api: string, secretKey: string): Promise<Check> {
  const answer = await probe(`${api}/v1/prices?limit=1`, secretKey);
  if ("error" in answer) return { name: "stripe", status: "fail", message: `cannot reach Stripe at ${api}: ${answer.error}` };
  if (answer.status === 401 || answer.status === 403) return { name: "stripe", status: "fail", message: `Stripe refused STRIPE_SECRET_KEY (${answer.status})` };
  if (answer.status !== 200) return { name: "stripe", status: "fail", message: `Stripe answered ${answer.status} to a price listing` };
  return { name: "stripe", status: "ok", message: `STRIPE_SECRET_KEY accepted by Stripe (${answer.ms} ms)` };
}

async function checkPrice(pack: CreditPack, priceId: string | undefined, api: string, secretKey: string, skipLookup: string | null): Promise<Check> {
  const name = `stripe price ${pack.id}`;
  const variable = `STRIPE_PRICE_${pack.id.toUpperCase()}`;
  if (priceId === undefined) return { name, status: "fail", message: `${variable} is not set: buying the ${pack.name} pack answers 503` };
  if (skipLookup !== null) return { name, status: "skip", message: `${variable} is set; not looked up (${skipLookup})` };

  const answer = await probe(`${api}/v1/prices/${encodeURIComponent(priceId)}`, secretKey);
  if ("error" in answer) return { name, status: "fail", message: `cannot reach Stripe: ${answer.error}` };
  if (answer.status === 404) return { name, status: "fail", message: `Stripe has no price ${priceId} (${variable})` };
  if (answer.status !== 200) return { name, status: "fail", message: `Stripe answered ${answer.status} for price ${priceId} (${variable})` };
  const price = answer.body as { active?: unknown; currency?: unknown; unit_amount?: unknown };
  if (price.active !== true) return { name, status: "fail", message: `price ${priceId} (${variable}) is archived in Stripe: checkout for the ${pack.name} pack fails` };
  const cents = Number((parseUsd(pack.priceUsd) ?? 0n) / NANOS_PER_CENT);
  if (price.currency !== "usd" || price.unit_amount !== cents) {
    return {
      name,
      status: "warn",
      message: `price ${priceId} charges ${String(price.unit_amount)} ${String(price.currency)} (minor units), but the ${pack.name} pack sells for $${pack.priceUsd}`,
    };
  }
  return { name, status: "ok", message: `${priceId} is active at $${pack.priceUsd}` };
}
