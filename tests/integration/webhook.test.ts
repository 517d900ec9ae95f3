import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import { CREDIT_PACKS, PACK_IDS, type PackId } from "../../src/core/checkout/packs.ts";
import { describeEachDialect } from "../support/databases.ts";
import { deliver, paidSession, startFakeStripe, stripeEnv, stripeEvent, type FakeStripe } from "../support/fake-stripe.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";
import { signUpUser, type Browser } from "../support/session.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
const RECEIVED = { received: true };

describeEachDialect("POST /webhooks/stripe", (dialect) => {
  const fake: FakeStripe = startFakeStripe();
  afterAll(() => fake.stop());
  const gateway = useGateway(dialect, { ...stripeEnv(fake), BASE_PATH: "/api", FREE_CREDITS_USD: "0" });

  const accountOf = async (user: Browser) => (await gateway().store.findAccountByEmail(user.email))!;
  /** Signs a new buyer up and opens a checkout for `packId`; returns the buyer and Stripe's session. */
  async function checkout(packId: PackId) {
    const buyer = await signUpUser(gateway().url);
    const res = await buyer.send("POST", "/checkout", { packId });
    const { sessionId } = await readJson(res);
    return { buyer, session: fake.sessions.get(sessionId)! };
  }
  const completed = (session: Record<string, unknown>) => stripeEvent("checkout.session.completed", paidSession(session));
  /** The buyer's balance, after checking that it is the sum of their ledger. */
  async function balance(buyer: Browser): Promise<Nanos> {
    const account = await accountOf(buyer);
    expect(await gateway().store.ledgerSum(account.id)).toBe(account.balance);
    return account.balance;
  }

  test.each(PACK_IDS)("a paid %s checkout credits exactly the pack's credits, once, end to end", async (packId) => {
    const { buyer, session } = await checkout(packId);
    const res = await deliver(gateway().url, completed(session));
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual(RECEIVED);
    expect(await balance(buyer)).toBe(CREDIT_PACKS[packId].credits);
    const [purchase] = await gateway().store.listCheckouts((await accountOf(buyer)).id, { paidOnly: true });
    expect(purchase).toMatchObject({ id: session.id, packId, status: "paid", paidAt: expect.any(Number) });
  });

  test("the amounts in the event are never credited: the recorded pack decides", async () => {
    const { buyer, session } = await checkout("builder");
    const inflated = { ...paidSession(session), amount_total: 1_000_000_00, metadata: { ...(session.metadata as object), packId: "scale" } };
    await deliver(gateway().url, stripeEvent("checkout.session.completed", inflated));
    expect(await balance(buyer)).toBe(usd("30"));
  });

  describe("exactly once", () => {
    test("a redelivered event credits nothing more", async () => {
      const { buyer, session } = await checkout("pro");
      const event = completed(session);
      for (let i = 0; i < 3; i++) expect((await deliver(gateway().url, event)).status).toBe(200);
      expect(await balance(buyer)).toBe(usd("60"));
    });

    test("concurrent deliveries of the same event credit once", async () => {
      const { buyer, session } = await checkout("team");
      const event = completed(session);
      const answers = await Promise.all(Array.from({ length: 8 }, () => deliver(gateway().url, event)));
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(await balance(buyer)).toBe(usd("120"));
    });

    test("completed and async_payment_succeeded for one session, delivered together, credit once", async () => {
      const { buyer, session } = await checkout("scale");
      const events = [completed(session), stripeEvent("checkout.session.async_payment_succeeded", paidSession(session))];
      await Promise.all([...events, ...events].map((event) => deliver(gateway().url, event)));
      expect(await balance(buyer)).toBe(usd("250"));
    });

    test("a delayed payment credits when it succeeds, not when the session completes unpaid", async () => {
      const { buyer, session } = await checkout("builder");
      await deliver(gateway().url, stripeEvent("checkout.session.completed", { ...session, status: "complete", payment_status: "unpaid" }));
      expect(await balance(buyer)).toBe(usd("0"));
      await deliver(gateway().url, stripeEvent("checkout.session.async_payment_succeeded", paidSession(session)));
      expect(await balance(buyer)).toBe(usd("30"));
    });
  });

  test("a paid session the gateway has no record of is credited from its metadata's pack", async () => {
    const buyer = await signUpUser(gateway().url);
    const accountId = (await accountOf(buyer)).id;
    const lost = { id: "cs_test_never_recorded", object: "checkout.session", metadata: { accountId, packId: "pro" }, client_reference_id: accountId };
    expect((await deliver(gateway().url, completed(lost))).status).toBe(200);
    expect(await balance(buyer)).toBe(usd("60"));
  });

  test("a paid session that is not the gateway's is acknowledged and credits nobody", async () => {
    const res = await deliver(gateway().url, completed({ id: "cs_test_other_product", object: "checkout.session", metadata: {} }));
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual(RECEIVED);
  });

  test("an expired session is closed and no longer holds capacity", async () => {
    const { buyer, session } = await checkout("team");
    await deliver(gateway().url, stripeEvent("checkout.session.expired", { ...session, status: "expired" }));
    const [closed] = await gateway().store.listCheckouts((await accountOf(buyer)).id, { paidOnly: false });
    expect(closed?.status).toBe("expired");
    expect(await balance(buyer)).toBe(usd("0"));
  });

  test.each([
    ["customer.created", { id: "cus_1", object: "customer" }],
    ["invoice.paid", { id: "in_1", object: "invoice", amount_paid: 5000 }],
    ["payment_intent.succeeded", { id: "pi_1", object: "payment_intent", amount: 2500 }],
  ])("acknowledges %s with 200 and ignores it", async (type, object) => {
    const res = await deliver(gateway().url, stripeEvent(type, object));
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual(RECEIVED);
  });

  describe("signature", () => {
    let buyer: Browser;
    let session: Record<string, unknown>;
    beforeAll(async () => {
      ({ buyer, session } = await checkout("scale"));
    });

    const refusals: [string, () => Promise<Response>, string][] = [
      ["missing", () => fetch(`${gateway().url}/webhooks/stripe`, { method: "POST", body: JSON.stringify(completed(session)) }), "Missing Stripe-Signature header"],
      ["made with another secret", () => deliver(gateway().url, completed(session), { secret: "whsec_someone_else" }), "Invalid Stripe-Signature"],
      ["over a different body", () => deliver(gateway().url, completed(session), { tamper: (body) => body.replace('"scale"', '"pro"') }), "Invalid Stripe-Signature"],
      ["over the same JSON re-serialized", () => deliver(gateway().url, completed(session), { tamper: (body) => JSON.stringify(JSON.parse(body), null, 2) }), "Invalid Stripe-Signature"],
      ["older than five minutes", () => deliver(gateway().url, completed(session), { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }), "Invalid Stripe-Signature"],
      ["garbage", () => fetch(`${gateway().url}/webhooks/stripe`, { method: "POST", headers: { "stripe-signature": "t=1,v1=00" }, body: "{}" }), "Invalid Stripe-Signature"],
    ];

    test.each(refusals)("%s: 400, and nothing is credited", async (_title, send, error) => {
      const res = await send();
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error });
      expect(await balance(buyer)).toBe(usd("0"));
    });

    test("the same event correctly signed is then credited (the refusals did not mark it processed)", async () => {
      expect((await deliver(gateway().url, completed(session))).status).toBe(200);
      expect(await balance(buyer)).toBe(usd("250"));
    });
  });

  test("other methods answer 405", async () => {
    const res = await fetch(`${gateway().url}/webhooks/stripe`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describeEachDialect("POST /webhooks/stripe without STRIPE_WEBHOOK_SECRET", (dialect) => {
  const fake: FakeStripe = startFakeStripe();
  afterAll(() => fake.stop());
  const { STRIPE_WEBHOOK_SECRET: _unset, ...env } = stripeEnv(fake);
  const gateway = useGateway(dialect, env);

  test("answers 503, so that Stripe keeps the event and retries it once the secret is set", async () => {
    const res = await deliver(gateway().url, stripeEvent("checkout.session.completed", { id: "cs_test_x", object: "checkout.session" }));
    expect(res.status).toBe(503);
    expect(await readJson(res)).toEqual({ error: "Stripe webhooks are not configured" });
  });
});
