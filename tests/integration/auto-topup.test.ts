// Automatic top-up end to end over HTTP: the settings, the card saved at a Checkout purchase,
// the off-session PaymentIntent a charge below the threshold starts, Stripe's events about it
// (signed as Stripe signs them, replayed and out of order), the monthly maximum, and the one
// mail a refused card sends.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import { first } from "../../src/db/sql.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { deliver, paidSession, startFakeStripe, stripeEnv, stripeEvent, type FakeStripe } from "../support/fake-stripe.ts";
import type { OffSessionBehaviour } from "../support/fake-stripe-intents.ts";
import { startFakeSmtp, type FakeSmtp } from "../support/fake-smtp.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { generate } from "../support/keys.ts";
import { accountIdOf, signInOperator } from "../support/operator.ts";
import { useGateway } from "../support/server.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
/** gpt-4.1's output price is $8 per million tokens: this many cost exactly $0.50, and $6. */
const HALF_USD = { prompt_tokens: 0, completion_tokens: 62_500 };
const SIX_USD = { prompt_tokens: 0, completion_tokens: 750_000 };
const BUILDER = { packId: "builder", thresholdUsd: "25", monthlyMaxUsd: "100" };

const smtp: FakeSmtp = await startFakeSmtp();
const fake: FakeStripe = startFakeStripe();
const upstream: FakeUpstream = startFakeUpstream();
afterAll(async () => {
  await smtp.stop();
  await fake.stop();
  await upstream.stop();
});

describeEachDialect("automatic top-up", (dialect) => {
  const gateway = useGateway(dialect, {
    ...stripeEnv(fake), ...providerEnv(upstream), FREE_CREDITS_USD: "0", MAX_CONCURRENT_REQUESTS: "50",
    SMTP_URL: smtp.url, ALERT_FROM: "alerts@gateway.test", ALERT_INTERVAL_MS: "10", PUBLIC_URL: "https://gw.example",
  });
  beforeAll(() => fake.intents.behave("succeeded"));

  const send = async (event: unknown) => expect((await deliver(gateway().url, event)).status).toBe(200);
  /** Buys `packId` through Checkout, paid: the session as the fake received it and as Stripe reports it paid. */
  async function buy(buyer: Browser, packId = "builder") {
    const { sessionId } = await readJson(await buyer.send("POST", "/checkout", { packId }));
    const paid = paidSession(fake.sessions.get(sessionId)!);
    await send(stripeEvent("checkout.session.completed", paid));
    return { form: fake.received.at(-1)!.form, paid };
  }
  /** A buyer with automatic top-up on (`settings`) and a card saved by a Builder purchase: $30 of credits. */
  async function armed(settings: Record<string, unknown> = BUILDER) {
    const buyer = await signUpUser(gateway().url);
    expect((await buyer.send("PUT", "/settings/auto-topup", settings)).status).toBe(200);
    await buy(buyer);
    return { buyer, accountId: await accountIdOf(gateway().store, buyer), key: (await generate(buyer)).key as string };
  }
  const intentsOf = (accountId: string) => fake.intents.received.filter((r) => r.form["metadata[accountId]"] === accountId);
  const madeFor = (accountId: string) => [...fake.intents.intents.values()].filter((i) => (i.metadata as Record<string, string>).accountId === accountId);
  async function balance(accountId: string): Promise<Nanos> {
    const account = (await gateway().store.getAccount(accountId))!;
    expect(await gateway().store.ledgerSum(accountId)).toBe(account.balance);
    return account.balance;
  }
  const spend = async (key: string, usage: typeof SIX_USD) => {
    upstream.behave({ usage });
    const res = await postChat(gateway().url, key, hello("gpt-4.1"));
    expect(res.status).toBe(200);
  };
  const settings = async (buyer: Browser) => readJson(await buyer.send("GET", "/settings/auto-topup"));
  const failedMails = (buyer: Browser) => smtp.received.filter((m) => m.to.includes(buyer.email) && m.raw.includes("Automatic top-up turned off"));
  const failedOutbox = async (accountId: string) =>
    Number((await gateway().db.run(first("SELECT COUNT(*) AS n FROM alert_outbox WHERE account_id = ? AND subject = 'Automatic top-up turned off'", accountId)))!.n);

  test.each([
    [{ ...BUILDER, packId: "mega" }, 400, "packId must be one of builder, pro, team, scale"],
    [{ ...BUILDER, thresholdUsd: 0 }, 400, "thresholdUsd must be a USD amount greater than 0 and at most 10000"],
    [{ ...BUILDER, thresholdUsd: "-5" }, 400, "thresholdUsd must be a USD amount greater than 0 and at most 10000"],
    [{ ...BUILDER, thresholdUsd: "ten" }, 400, "thresholdUsd must be a USD amount greater than 0 and at most 10000"],
    [{ ...BUILDER, thresholdUsd: "10.005" }, 400, "thresholdUsd must be whole cents"],
    [{ ...BUILDER, thresholdUsd: null }, 400, "thresholdUsd must be a USD amount greater than 0 and at most 10000"],
    [{ ...BUILDER, monthlyMaxUsd: "24.99" }, 400, "monthlyMaxUsd must be at least the Builder pack's price (25 USD)"],
    [{ ...BUILDER, monthlyMaxUsd: 1e9 }, 400, "monthlyMaxUsd must be a USD amount greater than 0 and at most 100000"],
    [[], 400, "Request body must be a JSON object"],
  ])("PUT %j answers %i", async (body, status, error) => {
    const buyer = await signUpUser(gateway().url);
    const res = await buyer.send("PUT", "/settings/auto-topup", body);
    expect({ status: res.status, body: await readJson(res) }).toEqual({ status, body: { error } });
  });

  test("PUT turns it on, the next Checkout saves the card, GET shows it; DELETE turns it off and forgets it", async () => {
    const buyer = await signUpUser(gateway().url);
    const off = { enabled: false, packId: null, thresholdUsd: null, monthlyMaxUsd: null, cardSaved: false, card: null, inFlight: false };
    expect(await settings(buyer)).toEqual(off);
    // A purchase while it is off keeps no card.
    const before = await buy(buyer);
    expect(before.form["payment_intent_data[setup_future_usage]"]).toBeUndefined();
    expect(before.form.customer_creation).toBeUndefined();

    const put = await buyer.send("PUT", "/settings/auto-topup", { packId: "pro", thresholdUsd: 10, monthlyMaxUsd: "150.5" });
    const on = { enabled: true, packId: "pro", thresholdUsd: "10.00", monthlyMaxUsd: "150.50", cardSaved: false, card: null, inFlight: false };
    expect({ status: put.status, body: await readJson(put) }).toEqual({ status: 200, body: on });
    const { form, paid } = await buy(buyer);
    expect([form["payment_intent_data[setup_future_usage]"], form.customer_creation, form["metadata[saveCard]"]]).toEqual(["off_session", "always", "1"]);
    expect(await settings(buyer)).toEqual({ ...on, cardSaved: true, card: { brand: "visa", last4: "4242" } });
    // The next purchase saves to the same Stripe customer.
    const again = await buy(buyer);
    expect([again.form.customer, again.form.customer_creation]).toEqual([paid.customer as string, undefined]);

    expect((await buyer.send("DELETE", "/settings/auto-topup")).status).toBe(200);
    expect(await settings(buyer)).toEqual(off);
    const audit = (await readJson(await buyer.send("GET", "/account/audit"))).events.map((e: { type: string }) => e.type);
    expect(audit).toEqual(expect.arrayContaining(["auto_topup_set", "auto_topup_off"]));
  });

  test("without a session: 401", async () => {
    const res = await fetch(`${gateway().url}/settings/auto-topup`);
    expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 401, body: { error: "Unauthorized" } });
  });

  test("20 requests crossing the threshold at once start exactly one off-session PaymentIntent, none of them waiting for it", async () => {
    const { buyer, accountId, key } = await armed();
    const release = fake.intents.hold();
    upstream.behave({ usage: HALF_USD });
    // Stripe holds its answer: every request is answered all the same.
    const answers = await Promise.all(Array.from({ length: 20 }, () => postChat(gateway().url, key, hello("gpt-4.1"))));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    await waitFor(() => intentsOf(accountId).length > 0, "the off-session PaymentIntent");
    release();
    expect(await balance(accountId)).toBe(usd("20"));
    const [asked] = intentsOf(accountId);
    expect(intentsOf(accountId)).toHaveLength(1);
    expect(asked!.form).toMatchObject({ amount: "2500", currency: "usd", off_session: "true", confirm: "true", customer: expect.stringMatching(/^cus_/), payment_method: expect.stringMatching(/^pm_/) });
    expect(asked!.idempotencyKey).toEqual(expect.stringMatching(/^topup_/));
    await waitFor(async () => (await settings(buyer)).inFlight === true, "the attempt in flight");

    // Credited by Stripe's event only, once however often and however many instances get it.
    const [intent] = madeFor(accountId);
    const succeeded = stripeEvent("payment_intent.succeeded", intent!);
    await Promise.all([send(succeeded), send(succeeded), send(stripeEvent("payment_intent.succeeded", intent!))]);
    expect(await balance(accountId)).toBe(usd("50"));
    const { purchases } = await readJson(await buyer.send("GET", "/account/purchases"));
    expect(purchases[0]).toMatchObject({ id: intent!.id, packId: "builder", status: "paid", creditsUsd: "30.00", source: "auto_topup" });
    expect((await settings(buyer)).inFlight).toBe(false);
    const audit = (await readJson(await buyer.send("GET", "/account/audit"))).events.map((e: { type: string }) => e.type);
    expect(audit).toEqual(expect.arrayContaining(["auto_topup_started", "auto_topup_paid"]));
  });

  test("a payment_intent.succeeded delivered before Stripe's answer reached the gateway credits once, under the pi_ id", async () => {
    const { buyer, accountId, key } = await armed();
    const release = fake.intents.hold();
    await spend(key, SIX_USD);
    await waitFor(() => madeFor(accountId).length === 1, "the PaymentIntent");
    const [intent] = madeFor(accountId);
    await send(stripeEvent("payment_intent.succeeded", intent!));
    expect(await balance(accountId)).toBe(usd("54"));
    release();
    await waitFor(async () => (await readJson(await buyer.send("GET", "/account/audit"))).events.some((e: { type: string }) => e.type === "auto_topup_started"), "Stripe's answer handled");
    const { purchases } = await readJson(await buyer.send("GET", "/account/purchases"));
    expect(purchases.filter((p: { source: string }) => p.source === "auto_topup").map((p: { id: string; status: string }) => [p.id, p.status])).toEqual([[intent!.id, "paid"]]);
    expect(await balance(accountId)).toBe(usd("54"));
  });

  test("the monthly maximum holds: top-ups stop once the next one would pass it", async () => {
    const { accountId, key } = await armed({ ...BUILDER, monthlyMaxUsd: "50" });
    /** Spends $6 at a time until the balance is below the $25 threshold. */
    const spendBelowThreshold = async () => {
      while ((await balance(accountId)) >= usd("25")) await spend(key, SIX_USD);
    };
    for (const n of [1, 2]) {
      await spendBelowThreshold();
      await waitFor(() => madeFor(accountId).length === n, `top-up ${n}`);
      await send(stripeEvent("payment_intent.succeeded", madeFor(accountId)[n - 1]!));
    }
    // Below the threshold again, but a third $25 would make $75 this month.
    await spendBelowThreshold();
    await spend(key, SIX_USD);
    const now = Date.now();
    const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
    expect(await gateway().store.claimAutoTopup({ accountId, now, monthStart, staleBefore: now })).toBeNull();
    expect(intentsOf(accountId)).toHaveLength(2);
  });

  test.each<[OffSessionBehaviour]>([["card_declined"], ["authentication_required"], ["requires_action"]])(
    "Stripe's %s turns it off, forgets the card and sends one mail linking the Top up page",
    async (behaviour) => {
      const { buyer, accountId, key } = await armed();
      fake.intents.behave(behaviour);
      try {
        await spend(key, SIX_USD);
        await waitFor(async () => (await settings(buyer)).enabled === false, "automatic top-up turned off", 5_000);
      } finally {
        fake.intents.behave("succeeded");
      }
      expect(await settings(buyer)).toMatchObject({ enabled: false, cardSaved: false, inFlight: false });
      await waitFor(() => failedMails(buyer).length === 1, "the mail");
      // Quoted-printable: soft line breaks joined.
      expect(failedMails(buyer)[0]!.raw.replaceAll("=\r\n", "")).toContain("Buy credits or turn automatic top-up on again with another card: https://gw.example/dashboard/topup\r\n");
      // Stripe's payment_intent.payment_failed for the same attempt, twice: still one mail.
      const [intent] = madeFor(accountId);
      const failed = stripeEvent("payment_intent.payment_failed", intent!);
      await send(failed);
      await send(failed);
      expect(await failedOutbox(accountId)).toBe(1);
      expect(await balance(accountId)).toBe(usd("24"));
      const { purchases } = await readJson(await buyer.send("GET", "/account/purchases"));
      expect(purchases.filter((p: { source: string }) => p.source === "auto_topup").map((p: { status: string }) => p.status)).toEqual(["failed"]);
    },
  );

  test("payment_intent.payment_failed after Stripe accepted the attempt turns it off with one mail; a late success still credits", async () => {
    const { buyer, accountId, key } = await armed();
    fake.intents.behave("processing");
    try {
      await spend(key, SIX_USD);
      await waitFor(() => madeFor(accountId).length === 1, "the PaymentIntent");
    } finally {
      fake.intents.behave("succeeded");
    }
    const intent = { ...madeFor(accountId)[0]!, status: "requires_payment_method", last_payment_error: { type: "card_error", code: "card_declined" } };
    await waitFor(async () => (await settings(buyer)).inFlight === true, "the attempt in flight");
    await Promise.all([send(stripeEvent("payment_intent.payment_failed", intent)), send(stripeEvent("payment_intent.payment_failed", intent))]);
    expect(await settings(buyer)).toMatchObject({ enabled: false, cardSaved: false, inFlight: false });
    expect(await failedOutbox(accountId)).toBe(1);
    await send(stripeEvent("payment_intent.succeeded", { ...intent, status: "succeeded", amount_received: 2500 }));
    expect(await balance(accountId)).toBe(usd("54"));
  });

  test("a top-up purchase is refunded by its pi_ id as a Checkout purchase is: through Stripe, the credits taken back on charge.refunded", async () => {
    const { buyer, accountId, key } = await armed();
    await spend(key, SIX_USD);
    await waitFor(() => madeFor(accountId).length === 1, "the PaymentIntent");
    const [intent] = madeFor(accountId);
    await send(stripeEvent("payment_intent.succeeded", intent!));
    expect(await balance(accountId)).toBe(usd("54"));
    const operator = await signInOperator(gateway().url, gateway().store);
    const res = await operator.send("POST", `/admin/purchases/${intent!.id}/refund`, {});
    expect(res.status).toBe(200);
    expect(fake.refunds.at(-1)!.form).toEqual({ payment_intent: intent!.id as string, amount: "2500" });
    await send(stripeEvent("charge.refunded", fake.charge(intent!.id as string)));
    expect(await balance(accountId)).toBe(usd("24"));
    const { purchases } = await readJson(await buyer.send("GET", "/account/purchases"));
    expect(purchases[0]).toMatchObject({ id: intent!.id, source: "auto_topup", status: "paid" });
  });

  test("the 402 of an account whose top-up is in flight says so after the spec's words and link", async () => {
    const { accountId, key } = await armed();
    const release = fake.intents.hold();
    try {
      await spend(key, { prompt_tokens: 0, completion_tokens: 3_750_000 });
      await waitFor(() => madeFor(accountId).length === 1, "the PaymentIntent");
      const refused = await postChat(gateway().url, key, hello("gpt-4.1"));
      expect(refused.status).toBe(402);
      const { message } = (await readJson(refused)).error;
      expect(message).toStartWith("Insufficient credits: available balance $0.000000, estimated cost $");
      expect(message).toContain("Top up at https://gw.example/dashboard/topup");
      expect(message).toEndWith(". An automatic top-up is under way: its credits arrive once the payment succeeds");
    } finally {
      release();
    }
    await send(stripeEvent("payment_intent.succeeded", madeFor(accountId)[0]!));
    expect((await postChat(gateway().url, key, hello("gpt-4.1"))).status).toBe(200);
  });

  test("payment_intent.payment_failed delivered before Stripe's 402 reached the gateway: off, one mail between them", async () => {
    const { buyer, accountId, key } = await armed();
    fake.intents.behave("card_declined");
    const release = fake.intents.hold();
    try {
      await spend(key, SIX_USD);
      await waitFor(() => madeFor(accountId).length === 1, "the declined PaymentIntent");
      await send(stripeEvent("payment_intent.payment_failed", madeFor(accountId)[0]!));
      expect(await settings(buyer)).toMatchObject({ enabled: false, cardSaved: false });
    } finally {
      release();
      fake.intents.behave("succeeded");
    }
    await waitFor(async () => (await readJson(await buyer.send("GET", "/account/audit"))).events
      .filter((e: { type: string }) => e.type === "auto_topup_off").length === 1, "the refusal audited");
    await waitFor(() => failedMails(buyer).length === 1, "the mail");
    expect(await failedOutbox(accountId)).toBe(1);
  });
});
