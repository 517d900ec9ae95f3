// Refunds and disputes of credit purchases, end to end over HTTP: Stripe's events signed as
// Stripe signs them, the operator's refund through the console, and what the keys can do after.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import type { PackId } from "../../src/core/checkout/packs.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { chargeOf, deliver, disputeOf, paidSession, startFakeStripe, stripeEnv, stripeEvent, type FakeStripe } from "../support/fake-stripe.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { generate } from "../support/keys.ts";
import { accountIdOf, signInOperator } from "../support/operator.ts";
import { useGateway } from "../support/server.ts";
import { signUpUser, type Browser } from "../support/session.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
/** gpt-4.1's output price is $8 per million tokens: this many cost exactly $15. */
const FIFTEEN_USD_OF_TOKENS = { prompt_tokens: 0, completion_tokens: 1_875_000 };

describeEachDialect("refunds and disputes", (dialect) => {
  const fake: FakeStripe = startFakeStripe();
  const upstream: FakeUpstream = startFakeUpstream();
  afterAll(async () => {
    await fake.stop();
    await upstream.stop();
  });
  const gateway = useGateway(dialect, { ...stripeEnv(fake), ...providerEnv(upstream), FREE_CREDITS_USD: "0" });
  let operator: Browser;
  beforeAll(async () => {
    operator = await signInOperator(gateway().url, gateway().store);
  });

  /** A new buyer who paid for `packId`: the buyer, and the payment intent that paid. */
  async function bought(packId: PackId) {
    const buyer = await signUpUser(gateway().url);
    const { sessionId } = await readJson(await buyer.send("POST", "/checkout", { packId }));
    const paid = paidSession(fake.sessions.get(sessionId)!);
    expect((await deliver(gateway().url, stripeEvent("checkout.session.completed", paid))).status).toBe(200);
    return { buyer, sessionId: sessionId as string, intent: paid.payment_intent, amount: (paid as Record<string, unknown>).amount_total as number };
  }
  /** The buyer's balance, after checking that it is the sum of their ledger. */
  async function balance(buyer: Browser): Promise<Nanos> {
    const account = (await gateway().store.findAccountByEmail(buyer.email))!;
    expect(await gateway().store.ledgerSum(account.id)).toBe(account.balance);
    return account.balance;
  }
  const send = async (event: unknown) => expect((await deliver(gateway().url, event)).status).toBe(200);
  const refunded = (intent: string, amount: number, refundedCents: number) => stripeEvent("charge.refunded", chargeOf(intent, amount, refundedCents));
  const disputeEvent = (type: "created" | "closed", intent: string, amount: number, status: string) =>
    stripeEvent(`charge.dispute.${type}`, disputeOf(intent, amount, status));
  const consolePurchase = async (buyer: Browser) => (await readJson(await operator.send("GET", `/admin/accounts/${buyer.email}`))).purchases[0];

  test("a full refund of a half-spent purchase leaves the balance negative by the spent half; every key gets 402 until credits are granted", async () => {
    const { buyer, intent, amount } = await bought("builder");
    const [first, second] = [(await generate(buyer, { name: "a" })).key, (await generate(buyer, { name: "b" })).key];
    upstream.behave({ usage: FIFTEEN_USD_OF_TOKENS });
    expect((await postChat(gateway().url, first, hello("gpt-4.1"))).status).toBe(200);
    expect(await balance(buyer)).toBe(usd("15"));

    // Refunded in Stripe's dashboard: the gateway could not have refused it.
    await send(refunded(intent, amount, amount));
    expect(await balance(buyer)).toBe(usd("-15"));
    upstream.behave({});
    for (const key of [first, second]) {
      const res = await postChat(gateway().url, key, hello("gpt-4.1-nano"));
      expect(res.status).toBe(402);
      expect((await readJson(res)).error.type).toBe("insufficient_credits");
    }
    const listed = (await readJson(await operator.send("GET", `/admin/accounts?q=${encodeURIComponent(buyer.email)}`))).accounts;
    expect(listed).toEqual([expect.objectContaining({ email: buyer.email, balanceUsd: "-15.000000", overdrawn: true })]);
    expect(await consolePurchase(buyer)).toMatchObject({ paidUsd: "25.00", refundedUsd: "25.00", creditsTakenBackUsd: "30.000000000", disputedUsd: null });

    expect((await operator.send("POST", `/admin/accounts/${buyer.email}/credits`, { usd: "20" })).status).toBe(200);
    expect(await balance(buyer)).toBe(usd("5"));
    for (const key of [first, second]) expect((await postChat(gateway().url, key, hello("gpt-4.1-nano"))).status).toBe(200);
  });

  test("partial refunds: each takes back only what Stripe's cumulative amount_refunded adds", async () => {
    const { buyer, intent, amount } = await bought("pro");
    const tenUsd = refunded(intent, amount, 1000);
    await send(tenUsd);
    expect(await balance(buyer)).toBe(usd("48"));
    await send(refunded(intent, amount, 3000));
    expect(await balance(buyer)).toBe(usd("24"));
    // The first event again, and an older total under a new event id, take nothing more.
    await send(tenUsd);
    await send(refunded(intent, amount, 1000));
    expect(await balance(buyer)).toBe(usd("24"));
    expect(await consolePurchase(buyer)).toMatchObject({ refundedUsd: "30.00", creditsTakenBackUsd: "36.000000000" });
  });

  test("refund events delivered twice each and out of order end where the last total says", async () => {
    const { buyer, intent, amount } = await bought("team");
    const [quarter, half, all] = [2500, 5000, 10000].map((cents) => refunded(intent, amount, cents));
    for (const event of [half, all, quarter, half, all, quarter]) await send(event);
    expect(await balance(buyer)).toBe(usd("0"));
    await Promise.all([quarter, half, all].flatMap((event) => [deliver(gateway().url, event), deliver(gateway().url, event)]));
    expect(await balance(buyer)).toBe(usd("0"));
  });

  describe("disputes", () => {
    test("created holds the purchase's credits (keys refused with 402), won gives them back, each once", async () => {
      const { buyer, intent, amount } = await bought("builder");
      const { key } = await generate(buyer);
      const created = disputeEvent("created", intent, amount, "needs_response");
      await send(created);
      await send(created);
      expect(await balance(buyer)).toBe(usd("0"));
      expect((await postChat(gateway().url, key, hello("gpt-4.1-nano"))).status).toBe(402);
      expect(await consolePurchase(buyer)).toMatchObject({ disputedUsd: "25.00", disputeStatus: "open" });
      const won = disputeEvent("closed", intent, amount, "won");
      await send(won);
      await send(won);
      await send(created);
      expect(await balance(buyer)).toBe(usd("30"));
      expect(await consolePurchase(buyer)).toMatchObject({ disputeStatus: "won" });
      expect((await postChat(gateway().url, key, hello("gpt-4.1-nano"))).status).toBe(200);
    });

    test("created then lost keeps the credits taken", async () => {
      const { buyer, intent, amount } = await bought("pro");
      await send(disputeEvent("created", intent, amount, "needs_response"));
      await send(disputeEvent("closed", intent, amount, "lost"));
      expect(await balance(buyer)).toBe(usd("0"));
      expect(await consolePurchase(buyer)).toMatchObject({ disputedUsd: "50.00", disputeStatus: "lost" });
    });

    test.each([
      ["won", "30", "won"],
      ["warning_closed", "30", "won"],
      ["lost", "0", "lost"],
    ])("closed (%s) delivered before created comes out as if in order", async (status, after, shown) => {
      const { buyer, intent, amount } = await bought("builder");
      const closed = disputeEvent("closed", intent, amount, status);
      await send(closed);
      expect(await balance(buyer)).toBe(usd(after));
      await send(disputeEvent("created", intent, amount, "needs_response"));
      await send(closed);
      expect(await balance(buyer)).toBe(usd(after));
      expect(await consolePurchase(buyer)).toMatchObject({ disputeStatus: shown });
    });

    test("a dispute after a partial refund holds only the credits not yet taken back", async () => {
      const { buyer, intent, amount } = await bought("pro");
      await send(refunded(intent, amount, 4000));
      expect(await balance(buyer)).toBe(usd("12"));
      await send(disputeEvent("created", intent, amount, "needs_response"));
      await send(disputeEvent("closed", intent, amount, "won"));
      expect(await balance(buyer)).toBe(usd("12"));
    });
  });

  describe("the console's refund (POST /admin/purchases/{id}/refund)", () => {
    test("refunds through Stripe's refund API, audited; the balance moves only when Stripe's event arrives", async () => {
      const { buyer, sessionId, intent } = await bought("pro");
      const before = fake.refunds.length;
      const res = await operator.send("POST", `/admin/purchases/${sessionId}/refund`, { usd: "12.50" });
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual({
        sessionId, refundId: expect.stringMatching(/^re_/), status: "succeeded", refundedUsd: "12.50", creditsTakenBackUsd: "15.000000000",
      });
      expect(fake.refunds.slice(before)).toEqual([{
        form: { payment_intent: intent, amount: "1250" }, authorization: "Bearer sk_test_fake", idempotencyKey: `refund_${sessionId}_0_1250`,
      }]);
      expect(await balance(buyer)).toBe(usd("60"));
      await send(stripeEvent("charge.refunded", fake.charge(intent)));
      expect(await balance(buyer)).toBe(usd("45"));
      const audit = (await readJson(await operator.send("GET", `/admin/audit?email=${encodeURIComponent(buyer.email)}`))).events;
      expect(audit[0]).toMatchObject({ type: "purchase_refunded", detail: expect.stringContaining(`12.50 USD of checkout ${sessionId} by operator ${operator.email}`) });
    });

    test("refuses with 409, asking nothing of Stripe, a refund that would take back credits already spent", async () => {
      const { buyer, sessionId } = await bought("builder");
      upstream.behave({ usage: FIFTEEN_USD_OF_TOKENS });
      expect((await postChat(gateway().url, (await generate(buyer)).key, hello("gpt-4.1"))).status).toBe(200);
      upstream.behave({});
      const before = fake.refunds.length;
      const res = await operator.send("POST", `/admin/purchases/${sessionId}/refund`, {});
      expect(res.status).toBe(409);
      expect(await readJson(res)).toEqual({
        error: "Refusing to refund 25.00 USD: it takes back 30.000000 USD of credits, but only 15.000000 USD of the account's credits are unspent",
      });
      expect(fake.refunds.length).toBe(before);
      expect(await balance(buyer)).toBe(usd("15"));
    });

    test.each([
      ["more than was paid", { usd: "25.01" }, 400, "At most 25.00 USD of this purchase is left to refund"],
      ["a fraction of a cent", { usd: "1.005" }, 400, "The amount to refund must be whole cents"],
      ["a negative amount", { usd: "-5" }, 400, 'The amount to refund must be a positive USD amount (got "-5")'],
    ])("refuses %s", async (_title, body, status, error) => {
      const { sessionId } = await bought("builder");
      const res = await operator.send("POST", `/admin/purchases/${sessionId}/refund`, body);
      expect({ status: res.status, body: await readJson(res) }).toEqual({ status, body: { error } });
    });

    test("404 for an unknown purchase; 403 for a customer; 401 without a session", async () => {
      expect((await operator.send("POST", "/admin/purchases/cs_test_nothing/refund", {})).status).toBe(404);
      // A NUL in the id names no purchase (and Postgres would refuse it as a parameter).
      const nul = await operator.send("POST", "/admin/purchases/cs_test_%00/refund", {});
      expect({ status: nul.status, body: await readJson(nul) }).toEqual({ status: 404, body: { error: "No purchase cs_test_\u0000" } });
      const { buyer, sessionId } = await bought("builder");
      expect((await buyer.send("POST", `/admin/purchases/${sessionId}/refund`, {})).status).toBe(403);
      expect((await fetch(`${gateway().url}/admin/purchases/${sessionId}/refund`, { method: "POST" })).status).toBe(401);
    });
  });
});
