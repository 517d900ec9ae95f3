// A fake Stripe API on loopback: POST /v1/checkout/sessions (and GET and expire one), POST /v1/refunds and POST
// /v1/payment_intents (fake-stripe-intents.ts) in Stripe's wire format (a form-encoded request,
// a JSON object answer), recording what it received; GET of a payment intent (its latest charge:
// receipt and card) and of an invoice; and webhook deliveries signed the way Stripe signs them,
// of checkout, payment intent, refund and dispute events.
import Stripe from "stripe";
import { fakeIntents } from "./fake-stripe-intents.ts";

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
  /** The refund requests received (`payment_intent`, `amount`), with their idempotency keys. */
  refunds: ReceivedSession[];
  /** The charge of a paid session's payment intent as Stripe reports it now: `amount_refunded` grows with each refund. */
  charge(paymentIntent: string): Record<string, unknown>;
  /** Off-session PaymentIntents: what was asked, what was made, and how the next are answered. */
  intents: ReturnType<typeof fakeIntents>;
  /** Until called again with null, answer session requests (create, expire, retrieve) with this Stripe error. */
  failWith(failure: { status: number; message: string } | null): void;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export function startFakeStripe(): FakeStripe {
  const received: ReceivedSession[] = [];
  const sessions = new Map<string, Record<string, unknown>>();
  let failure: { status: number; message: string } | null = null;
  const refunds: ReceivedSession[] = [];
  const refundedCents = new Map<string, number>();
  const refundsByKey = new Map<string, Record<string, unknown>>();
  const intents = fakeIntents();
  const charge = (intent: string) => {
    const session = [...sessions.values()].find((s) => paidSession(s).payment_intent === intent);
    const amount = session?.amount_total ?? intents.intents.get(intent)?.amount_received;
    if (typeof amount !== "number") throw new Error(`no session or payment intent paid by ${intent}`);
    return chargeOf(intent, amount, refundedCents.get(intent) ?? 0);
  };
  /**
   * `POST /v1/refunds` (https://docs.stripe.com/api/refunds/create): refunds `amount` cents of
   * the payment intent's charge, all that is left without one; more than is left is Stripe's
   * 400. The same Idempotency-Key answers the first refund again and refunds nothing more.
   */
  const refund = (form: Record<string, string>, idempotencyKey: string | null): Response => {
    const intent = form.payment_intent ?? "";
    const before = idempotencyKey === null ? undefined : refundsByKey.get(idempotencyKey);
    if (before) return Response.json(before);
    const paid = charge(intent);
    const left = (paid.amount as number) - (paid.amount_refunded as number);
    const amount = form.amount === undefined ? left : Number(form.amount);
    if (amount > left) {
      const message = `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(left / 100).toFixed(2)})`;
      return Response.json({ error: { type: "invalid_request_error", code: "amount_too_large", message } }, { status: 400 });
    }
    refundedCents.set(intent, (refundedCents.get(intent) ?? 0) + amount);
    const answer = { id: `re_${crypto.randomUUID().replaceAll("-", "")}`, object: "refund", amount, currency: "usd", payment_intent: intent, charge: paid.id, status: "succeeded" };
    if (idempotencyKey !== null) refundsByKey.set(idempotencyKey, answer);
    return Response.json(answer);
  };

  /**
   * `POST /v1/checkout/sessions/{id}/expire` (https://docs.stripe.com/api/checkout/sessions/expire):
   * only an `open` session can be expired, and the answer is the session, `status: "expired"`;
   * any other (complete, expired) is a 400 invalid_request_error, and an unknown id a 404 one.
   */
  const expire = (id: string): Response => {
    const session = sessions.get(id);
    if (!session) return noSuchSession(id);
    if (session.status !== "open") {
      const message = `This Checkout Session is in a(n) ${session.status} state and cannot be expired. Only Checkout Sessions in an open state can be expired.`;
      return Response.json({ error: { type: "invalid_request_error", message } }, { status: 400 });
    }
    const expired = { ...session, status: "expired", url: null };
    sessions.set(id, expired);
    return Response.json(expired);
  };

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const intent = /^\/v1\/payment_intents\/(pi_\w+)$/.exec(url.pathname)?.[1];
      // A paid payment, with the receipt and the card on its latest charge (asked for with
      // expand[]=latest_charge; https://docs.stripe.com/api/charges/object).
      if (request.method === "GET" && intent) {
        const latestCharge = {
          id: `ch_${intent.slice(3)}`, object: "charge", receipt_url: receiptFor(intent), payment_method: paymentMethodFor(intent),
          payment_method_details: { type: "card", card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030 } },
        };
        return Response.json({ ...intents.intents.get(intent), id: intent, object: "payment_intent", latest_charge: latestCharge });
      }
      const invoice = /^\/v1\/invoices\/(in_\w+)$/.exec(url.pathname)?.[1];
      // The invoice Checkout issued (https://docs.stripe.com/api/invoices/object#invoice_object-hosted_invoice_url).
      if (request.method === "GET" && invoice) {
        return Response.json({ id: invoice, object: "invoice", status: "paid", hosted_invoice_url: invoiceUrlFor(invoice) });
      }
      if (request.method === "POST" && url.pathname === "/v1/payment_intents") {
        return intents.create(Object.fromEntries(new URLSearchParams(await request.text())), request.headers.get("idempotency-key"));
      }
      if (request.method === "POST" && url.pathname === "/v1/refunds") {
        const form = Object.fromEntries(new URLSearchParams(await request.text()));
        const idempotencyKey = request.headers.get("idempotency-key");
        refunds.push({ form, authorization: request.headers.get("authorization"), idempotencyKey });
        return refund(form, idempotencyKey);
      }
      const sessionPath = /^\/v1\/checkout\/sessions\/(cs_\w+)(\/expire)?$/.exec(url.pathname);
      if (sessionPath && (request.method === "GET" || (request.method === "POST" && sessionPath[2]))) {
        if (failure) return failed(failure);
        const id = sessionPath[1]!;
        if (sessionPath[2]) return expire(id);
        return sessions.has(id) ? Response.json(sessions.get(id)) : noSuchSession(id);
      }
      if (request.method !== "POST" || url.pathname !== "/v1/checkout/sessions") {
        return Response.json({ error: { type: "invalid_request_error", message: `Unrecognized request URL (${request.method}: ${url.pathname})` } }, { status: 404 });
      }
      const form = Object.fromEntries(new URLSearchParams(await request.text()));
      received.push({ form, authorization: request.headers.get("authorization"), idempotencyKey: request.headers.get("idempotency-key") });
      if (failure) return failed(failure);
      const id = `cs_test_${crypto.randomUUID().replaceAll("-", "")}`;
      const created = Math.floor(Date.now() / 1000);
      const session = {
        id,
        object: "checkout.session",
        mode: form.mode,
        status: "open",
        payment_status: "unpaid",
        client_reference_id: form.client_reference_id ?? null,
        amount_total: PRICE_CENTS[form["line_items[0][price]"] ?? ""] ?? null,
        currency: "usd",
        metadata: Object.fromEntries(Object.entries(form).flatMap(([k, v]) => (/^metadata\[(\w+)\]$/.test(k) ? [[k.slice(9, -1), v]] : []))),
        // https://docs.stripe.com/api/checkout/sessions/object: the customer given, or made at
        // completion with customer_creation=always; an invoice once paid with invoice_creation.
        customer: form.customer ?? null,
        customer_creation: form.customer_creation ?? null,
        invoice_creation: { enabled: form["invoice_creation[enabled]"] === "true" },
        invoice: null,
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
    refunds,
    intents,
    charge,
    failWith: (next) => {
      failure = next;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Stripe's failure; it says whether the request may be retried, and the client obeys. */
const failed = (failure: { status: number; message: string }): Response =>
  Response.json({ error: { type: "api_error", message: failure.message } }, { status: failure.status, headers: { "stripe-should-retry": "false" } });

const noSuchSession = (id: string): Response =>
  Response.json({ error: { type: "invalid_request_error", code: "resource_missing", message: `No such checkout.session: '${id}'` } }, { status: 404 });

export const WEBHOOK_SECRET = "whsec_test_gateway_secret";
export const PRICES = { builder: "price_builder_25", pro: "price_pro_50", team: "price_team_100", scale: "price_scale_200" };
/** What each price charges, in cents. */
const PRICE_CENTS: Record<string, number> = { [PRICES.builder]: 2500, [PRICES.pro]: 5000, [PRICES.team]: 10000, [PRICES.scale]: 20000 };

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

/** The card a payment intent's charge was paid with, and its hosted invoice page. */
export const paymentMethodFor = (intent: string) => `pm_${intent.slice(3)}`;
export const invoiceUrlFor = (invoice: string) => `https://invoice.stripe.test/i/${invoice}`;

/**
 * A session as Stripe reports it once the buyer has paid: its payment intent, its customer (the
 * one given, or one made for customer_creation=always) and, with invoice_creation, its invoice.
 */
export const paidSession = (session: Record<string, unknown>) => {
  const suffix = String(session.id).slice(8);
  const customer = session.customer ?? (session.customer_creation === "always" ? `cus_${suffix}` : null);
  const invoice = (session.invoice_creation as { enabled?: boolean } | undefined)?.enabled ? `in_${suffix}` : null;
  return { ...session, status: "complete", payment_status: "paid", payment_intent: `pi_${suffix}`, customer, invoice };
};

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

/**
 * A payment intent's charge as Stripe reports it (https://docs.stripe.com/api/charges/object):
 * `amount_refunded` is the total refunded so far, `refunded` true only once it is all of `amount`.
 */
export const chargeOf = (intent: string, amount: number, amountRefunded: number) => ({
  id: `ch_${intent.slice(3)}`, object: "charge", amount, amount_captured: amount, amount_refunded: amountRefunded,
  currency: "usd", paid: true, payment_intent: intent, refunded: amountRefunded >= amount, disputed: false,
});

/**
 * A dispute of a payment intent's charge (https://docs.stripe.com/api/disputes/object), the
 * object of `charge.dispute.created` and `charge.dispute.closed`
 * (https://docs.stripe.com/api/events/types): `status` is `needs_response` while open, then
 * `won`, `lost` or, for an inquiry, `warning_closed`.
 */
export const disputeOf = (intent: string, amount: number, status: string, id = `du_${intent.slice(3)}`) => ({
  id, object: "dispute", amount, charge: `ch_${intent.slice(3)}`, currency: "usd", payment_intent: intent,
  reason: "fraudulent", status, is_charge_refundable: false, livemode: false, metadata: {},
});
