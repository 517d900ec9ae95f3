// The fake Stripe's off-session PaymentIntents: `POST /v1/payment_intents` with a saved card,
// as https://docs.stripe.com/payments/save-and-reuse?platform=web&ui=stripe-hosted#charge-saved-payment-method
// shows it: `customer`, `payment_method`, `off_session=true`, `confirm=true`. The answer is
// chosen by the test: `succeeded`, `processing`, `requires_action` (a 200 whose status asks the
// absent customer to act), or Stripe's 402 card errors `card_declined` and
// `authentication_required` (https://docs.stripe.com/declines/codes and
// https://docs.stripe.com/payments/payment-intents/verifying-status), whose error carries the
// PaymentIntent, left in `requires_payment_method` with its `last_payment_error`.

export type OffSessionBehaviour = "succeeded" | "processing" | "requires_action" | "card_declined" | "authentication_required";

export interface ReceivedIntent {
  form: Record<string, string>;
  idempotencyKey: string | null;
}

const CARD_ERRORS: Record<string, { message: string; decline_code?: string }> = {
  card_declined: { message: "Your card was declined.", decline_code: "generic_decline" },
  authentication_required: { message: "Your card was declined. This transaction requires authentication.", decline_code: "authentication_required" },
};

/** A PaymentIntent as Stripe reports it (https://docs.stripe.com/api/payment_intents/object). */
export const paymentIntentOf = (id: string, form: Record<string, string>, status: string, lastError: Record<string, unknown> | null = null) => ({
  id, object: "payment_intent", amount: Number(form.amount), amount_received: status === "succeeded" ? Number(form.amount) : 0,
  currency: form.currency, customer: form.customer, payment_method: form.payment_method, confirmation_method: "automatic",
  status, latest_charge: status === "succeeded" ? `ch_${id.slice(3)}` : null, last_payment_error: lastError,
  metadata: Object.fromEntries(Object.entries(form).flatMap(([k, v]) => {
    const key = /^metadata\[(\w+)\]$/.exec(k)?.[1];
    return key ? [[key, v]] : [];
  })),
  livemode: false,
});

export function fakeIntents() {
  const received: ReceivedIntent[] = [];
  /** Every PaymentIntent made, as it stands now, by id. */
  const intents = new Map<string, Record<string, unknown>>();
  const byKey = new Map<string, { status: number; body: unknown }>();
  let behaviour: OffSessionBehaviour = "succeeded";
  /** Until the gate opens, Stripe's answer waits (the PaymentIntent is made already): the test sees what the gateway does meanwhile. */
  let gate: Promise<void> | null = null;

  const answer = (form: Record<string, string>): { status: number; body: unknown } => {
    const id = `pi_auto_${crypto.randomUUID().replaceAll("-", "")}`;
    const cardError = CARD_ERRORS[behaviour];
    if (cardError) {
      const lastError = { type: "card_error", code: behaviour, ...cardError };
      const intent = paymentIntentOf(id, form, "requires_payment_method", lastError);
      intents.set(id, intent);
      return { status: 402, body: { error: { ...lastError, payment_intent: intent } } };
    }
    const intent = paymentIntentOf(id, form, behaviour);
    intents.set(id, intent);
    return { status: 200, body: intent };
  };

  return {
    received,
    intents,
    /** How the next PaymentIntents are answered. */
    behave(next: OffSessionBehaviour) {
      behaviour = next;
    },
    /** Holds the answers to PaymentIntent requests until the returned function is called. */
    hold(): () => void {
      let open = () => {};
      gate = new Promise((resolve) => (open = resolve));
      return () => {
        gate = null;
        open();
      };
    },
    /** `POST /v1/payment_intents`: the same Idempotency-Key answers the first answer again and makes nothing more. */
    async create(form: Record<string, string>, idempotencyKey: string | null): Promise<Response> {
      received.push({ form, idempotencyKey });
      const before = idempotencyKey === null ? undefined : byKey.get(idempotencyKey);
      const made = before ?? answer(form);
      if (idempotencyKey !== null) byKey.set(idempotencyKey, made);
      if (gate) await gate;
      return Response.json(made.body, { status: made.status, headers: { "stripe-should-retry": "false" } });
    },
  };
}
