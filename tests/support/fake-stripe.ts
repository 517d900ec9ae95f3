// A fake Stripe API on loopback: POST /v1/checkout/sessions in Stripe's wire format (a
// form-encoded request, a JSON checkout.session answer), recording what it received; and
// webhook deliveries signed the way Stripe signs them.
import Stripe from "stripe";

export interface ReceivedSession {
  /** The form fields as sent, e.g. `line_items[0][price]`. */
  form: Record<string, string>;
  authorization: string | null;
  idempotencyKey: string | null;
}

export interface FakeStripe {
  /** For STRIPE_API_BASE. */
  apiBase: string;
  received: ReceivedSession[];
  /** The sessions created, by id, as Stripe answered them. */
  sessions: Map<string, Record<string, unknown>>;
  /** Until called again with null, answer session requests with this Stripe error. */
  failWith(failure: { status: number; message: string } | null): void;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export function startFakeStripe(): FakeStripe {
  const received: ReceivedSession[] = [];
  const sessions = new Map<string, Record<string, unknown>>();
  let failure: { status: number; message: string } | null = null;

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const intent = /^\/v1\/payment_intents\/(pi_\w+)$/.exec(url.pathname)?.[1];
      // A paid session's payment, with the receipt on its latest charge (asked for with expand[]=latest_charge).
      if (request.method === "GET" && intent) {
        return Response.json({ id: intent, object: "payment_intent", latest_charge: { id: `ch_${intent.slice(3)}`, object: "charge", receipt_url: receiptFor(intent) } });
      }
      if (request.method !== "POST" || url.pathname !== "/v1/checkout/sessions") {
        return Response.json({ error: { type: "invalid_request_error", message: `Unrecognized request URL (${request.method}: ${url.pathname})` } }, { status: 404 });
      }
      const form = Object.fromEntries(new URLSearchParams(await request.text()));
      received.push({ form, authorization: request.headers.get("authorization"), idempotencyKey: request.headers.get("idempotency-key") });
      if (failure) {
        // Stripe says whether a failed request may be retried; the client obeys.
        return Response.json({ error: { type: "api_error", message: failure.message } }, {
          status: failure.status, headers: { "stripe-should-retry": "false" },
        });
      }
      const id = `cs_test_${crypto.randomUUID().replaceAll("-", "")}`;
      const created = Math.floor(Date.now() / 1000);
      const session = {
        id,
        object: "checkout.session",
        mode: form.mode,
        status: "open",
        payment_status: "unpaid",
        client_reference_id: form.client_reference_id ?? null,
        metadata: { accountId: form["metadata[accountId]"], packId: form["metadata[packId]"] },
        success_url: form.success_url,
        cancel_url: form.cancel_url,
        created,
        expires_at: created + 24 * 60 * 60,
        url: `https://checkout.stripe.test/c/pay/${id}`,
      };
      sessions.set(id, session);
      return Response.json(session);
    },
  });

  const stop = async () => {
    await server.stop(true);
  };
  return {
    apiBase: `http://127.0.0.1:${server.port}`,
    received,
    sessions,
    failWith: (next) => {
      failure = next;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

export const WEBHOOK_SECRET = "whsec_test_gateway_secret";
export const PRICES = { builder: "price_builder_25", pro: "price_pro_50", team: "price_team_100", scale: "price_scale_200" };

/** The gateway's Stripe settings for a fake: every pack priced, webhooks signed with WEBHOOK_SECRET. */
export const stripeEnv = (fake: FakeStripe): Record<string, string> => ({
  STRIPE_SECRET_KEY: "sk_test_fake",
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_API_BASE: fake.apiBase,
  ...Object.fromEntries(Object.entries(PRICES).map(([pack, price]) => [`STRIPE_PRICE_${pack.toUpperCase()}`, price])),
});

let eventCounter = 0;

/** A Stripe event of `type` about `object`, shaped as Stripe sends it. */
export const stripeEvent = (type: string, object: Record<string, unknown>, id = `evt_test_${process.pid}_${++eventCounter}`) => ({
  id,
  object: "event",
  api_version: Stripe.API_VERSION,
  created: Math.floor(Date.now() / 1000),
  type,
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  data: { object },
});

/** The receipt link the fake gives for a payment intent. */
export const receiptFor = (intent: string) => `https://pay.stripe.test/receipts/${intent}`;

/** A session as Stripe reports it once the buyer has paid, with its payment intent. */
export const paidSession = (session: Record<string, unknown>) => ({
  ...session, status: "complete", payment_status: "paid", payment_intent: `pi_${String(session.id).slice(8)}`,
});

/** Delivers `event` to the gateway's webhook with a real Stripe-Signature over the exact body. */
export async function deliver(
  baseUrl: string,
  event: unknown,
  options: { secret?: string; timestamp?: number; tamper?: (body: string) => string } = {},
): Promise<Response> {
  const payload = JSON.stringify(event);
  // generateTestHeaderString's async form: under Bun the package signs with WebCrypto, which is async only.
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp,
  });
  const body = options.tamper ? options.tamper(payload) : payload;
  return fetch(`${baseUrl}/webhooks/stripe`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": signature },
    body,
  });
}
