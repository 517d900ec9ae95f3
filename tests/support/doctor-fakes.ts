// What `gateway doctor` calls, faked on loopback: a provider's GET /v1/models and Stripe's price
// lookups, each answering only the right bearer key, and counting what they were asked.
import { PROVIDERS } from "../../src/core/catalog.ts";
import { CREDIT_PACKS, PACK_IDS } from "../../src/core/checkout/packs.ts";

export interface DoctorFakes {
  /** Environment for a configuration that passes every check against these fakes. */
  env: Record<string, string>;
  /** Requests each fake received, as "METHOD /path". */
  providerCalls: string[];
  stripeCalls: string[];
  stop(): Promise<void>;
}

const STRIPE_KEY = "sk_test_doctor_secret";
const providerKey = (provider: string) => `sk-doctor-${provider}-secret`;
const priceId = (pack: string) => `price_doctor_${pack}`;

const refused = () => Response.json({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }, { status: 401 });

export function startDoctorFakes(): DoctorFakes {
  const providerCalls: string[] = [];
  const stripeCalls: string[] = [];
  const validProviderKeys = new Set(PROVIDERS.map((p) => `Bearer ${providerKey(p)}`));

  const provider = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const { pathname } = new URL(request.url);
      providerCalls.push(`${request.method} ${pathname}`);
      if (!validProviderKeys.has(request.headers.get("authorization") ?? "")) return refused();
      if (request.method !== "GET" || pathname !== "/v1/models") return new Response("not found", { status: 404 });
      return Response.json({ object: "list", data: [{ id: "some-model", object: "model" }] });
    },
  });

  const prices = new Map(
    PACK_IDS.map((pack) => [priceId(pack), { id: priceId(pack), object: "price", active: true, currency: "usd", unit_amount: Number(CREDIT_PACKS[pack].priceUsd) * 100 }]),
  );
  const stripe = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const { pathname } = new URL(request.url);
      stripeCalls.push(`${request.method} ${pathname}`);
      if (request.headers.get("authorization") !== `Bearer ${STRIPE_KEY}`) return refused();
      if (pathname === "/v1/prices") return Response.json({ object: "list", data: [...prices.values()].slice(0, 1) });
      const price = prices.get(pathname.replace("/v1/prices/", ""));
      if (!price) return Response.json({ error: { type: "invalid_request_error", message: "No such price" } }, { status: 404 });
      return Response.json(price);
    },
  });

  const providerBase = `http://127.0.0.1:${provider.port}/v1`;
  return {
    env: {
      ...Object.fromEntries(PROVIDERS.flatMap((p) => [[`${p.toUpperCase()}_BASE_URL`, providerBase], [`${p.toUpperCase()}_API_KEY`, providerKey(p)]])),
      STRIPE_SECRET_KEY: STRIPE_KEY,
      STRIPE_WEBHOOK_SECRET: "whsec_doctor_secret",
      STRIPE_API_BASE: `http://127.0.0.1:${stripe.port}`,
      ...Object.fromEntries(PACK_IDS.map((pack) => [`STRIPE_PRICE_${pack.toUpperCase()}`, priceId(pack)])),
      ALERT_FROM: "alerts@gateway.example",
      METRICS_TOKEN: "metrics-doctor-secret",
    },
    providerCalls,
    stripeCalls,
    stop: async () => {
      await Promise.all([provider.stop(true), stripe.stop(true)]);
    },
  };
}
