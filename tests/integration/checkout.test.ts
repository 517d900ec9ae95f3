import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CREDIT_PACKS, PACK_IDS } from "../../src/core/checkout/packs.ts";
import { describeEachDialect } from "../support/databases.ts";
import { PRICES, startFakeStripe, stripeEnv, type FakeStripe } from "../support/fake-stripe.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";
import { request, signUpUser, type Browser } from "../support/session.ts";

const NOT_CONFIGURED = { error: "This pack is not yet configured. Please contact support." };

describeEachDialect("POST /checkout", (dialect) => {
  const fake: FakeStripe = startFakeStripe();
  afterAll(() => fake.stop());
  const gateway = useGateway(dialect, { ...stripeEnv(fake), BASE_PATH: "/api", PUBLIC_URL: "https://gw.example", FREE_CREDITS_USD: "0" });
  let buyer: Browser;
  beforeAll(async () => {
    buyer = await signUpUser(gateway().url);
  });
  const accountId = async (user: Browser) => (await gateway().store.findAccountByEmail(user.email))!.id;

  test.each(PACK_IDS)("creates a Stripe Checkout Session for the %s pack and records it", async (packId) => {
    const before = fake.received.length;
    const res = await buyer.send("POST", "/checkout", { packId });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toEqual({ url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/), sessionId: expect.stringMatching(/^cs_/) });
    expect(fake.sessions.get(body.sessionId)?.url).toBe(body.url);

    const id = await accountId(buyer);
    expect(fake.received.slice(before)).toEqual([
      {
        form: {
          mode: "payment",
          "line_items[0][price]": PRICES[packId],
          "line_items[0][quantity]": "1",
          client_reference_id: id,
          "metadata[accountId]": id,
          "metadata[packId]": packId,
          success_url: "https://gw.example/api/dashboard/topup?checkout=success&session_id={CHECKOUT_SESSION_ID}",
          cancel_url: "https://gw.example/api/dashboard/topup?checkout=cancelled",
        },
        authorization: "Bearer sk_test_fake",
        idempotencyKey: expect.stringMatching(/^hold_/),
      },
    ]);
    const recorded = (await gateway().store.listCheckouts(id, { paidOnly: false })).find((c) => c.id === body.sessionId);
    expect(recorded).toMatchObject({ id: body.sessionId, packId, credits: CREDIT_PACKS[packId].credits, status: "open", paidAt: null });
  });

  describe("errors, per the spec's table", () => {
    test("401 Unauthorized without a session, and nothing is sent to Stripe", async () => {
      const before = fake.received.length;
      const res = await request(gateway().url, "POST", "/checkout", { packId: "pro" });
      expect(res.status).toBe(401);
      expect(await readJson(res)).toEqual({ error: "Unauthorized" });
      expect(fake.received.length).toBe(before);
    });

    test("404 User not found when the signed-in account is gone", async () => {
      const leaving = await signUpUser(gateway().url);
      await gateway().store.updateAccount(await accountId(leaving), { deletedAt: Date.now() });
      const res = await leaving.send("POST", "/checkout", { packId: "pro" });
      expect(res.status).toBe(404);
      expect(await readJson(res)).toEqual({ error: "User not found" });
    });

    test.each([
      ["an unknown pack", { packId: "enterprise" }],
      ["a pack ID in the wrong case", { packId: "Pro" }],
      ["a number", { packId: 50 }],
      ["no packId", {}],
    ])("400 Invalid pack ID for %s", async (_title, body) => {
      const res = await buyer.send("POST", "/checkout", body);
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error: "Invalid pack ID" });
    });

    test("500 with the spec's text when Stripe fails, and the session is not recorded", async () => {
      const user = await signUpUser(gateway().url);
      fake.failWith({ status: 500, message: "An unknown error occurred" });
      try {
        const res = await user.send("POST", "/checkout", { packId: "team" });
        expect(res.status).toBe(500);
        expect(await readJson(res)).toEqual({ error: "Failed to create checkout session. Please try again." });
      } finally {
        fake.failWith(null);
      }
      expect(await gateway().store.listCheckouts(await accountId(user), { paidOnly: false })).toEqual([]);
    });

    test("other methods answer 405", async () => {
      const res = await buyer.send("GET", "/checkout");
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    });
  });
});

describeEachDialect("POST /checkout without Stripe configured", (dialect) => {
  const fake: FakeStripe = startFakeStripe();
  afterAll(() => fake.stop());
  const { STRIPE_PRICE_TEAM: _unpriced, ...someUnpriced } = stripeEnv(fake);
  const { STRIPE_SECRET_KEY: _noKey, ...noSecretKey } = stripeEnv(fake);
  const partial = useGateway(dialect, someUnpriced);
  const keyless = useGateway(dialect, noSecretKey);

  test("503 for a pack without a configured price, while priced packs sell", async () => {
    const user = await signUpUser(partial().url);
    const refused = await user.send("POST", "/checkout", { packId: "team" });
    expect(refused.status).toBe(503);
    expect(await readJson(refused)).toEqual(NOT_CONFIGURED);
    expect((await user.send("POST", "/checkout", { packId: "pro" })).status).toBe(200);
    expect(fake.received.map((r) => r.form["line_items[0][price]"])).toEqual([PRICES.pro]);
  });

  test("503 for every pack without STRIPE_SECRET_KEY", async () => {
    const user = await signUpUser(keyless().url);
    for (const packId of PACK_IDS) {
      const res = await user.send("POST", "/checkout", { packId });
      expect(res.status).toBe(503);
      expect(await readJson(res)).toEqual(NOT_CONFIGURED);
    }
  });
});

describeEachDialect("PURCHASE_CAPACITY_USD", (dialect) => {
  const fake: FakeStripe = startFakeStripe();
  afterAll(() => fake.stop());
  const gateway = useGateway(dialect, { ...stripeEnv(fake), PURCHASE_CAPACITY_USD: "100" });

  test("answers 409 capacity_exhausted, without creating a Stripe session, once open checkouts' credits would pass the cap", async () => {
    const user = await signUpUser(gateway().url);
    expect((await user.send("POST", "/checkout", { packId: "pro" })).status).toBe(200);
    expect((await user.send("POST", "/checkout", { packId: "builder" })).status).toBe(200);
    const before = fake.received.length;
    // 60 + 30 credits are open: a further 30 would make 120 > 100, though the prices sum to 100.
    const refused = await user.send("POST", "/checkout", { packId: "builder" });
    expect(refused.status).toBe(409);
    expect(await readJson(refused)).toEqual({ error: "capacity_exhausted" });
    expect(fake.received.length).toBe(before);
  });

});

describeEachDialect("PURCHASE_CAPACITY_USD under concurrent checkouts", (dialect) => {
  const fake: FakeStripe = startFakeStripe();
  afterAll(() => fake.stop());
  const gateway = useGateway(dialect, { ...stripeEnv(fake), PURCHASE_CAPACITY_USD: "90" });

  test("lets exactly as many through as the cap holds", async () => {
    const users = await Promise.all(Array.from({ length: 5 }, () => signUpUser(gateway().url)));
    const statuses = await Promise.all(users.map(async (u) => (await u.send("POST", "/checkout", { packId: "builder" })).status));
    expect(statuses.sort()).toEqual([200, 200, 200, 409, 409]);
    expect(fake.received).toHaveLength(3);
  });
});
