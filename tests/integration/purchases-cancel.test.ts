// An open checkout on the Purchases page: Stripe's page listed while it can still be paid, and
// POST /account/purchases/{id}/cancel, which expires the session at Stripe.
import { afterAll, describe, expect, test } from "bun:test";
import { CANCEL_FAILED } from "../../src/core/checkout/cancel.ts";
import { ZERO } from "../../src/core/money.ts";
import { exec } from "../../src/db/sql.ts";
import { describeEachDialect } from "../support/databases.ts";
import { deliver, paidSession, startFakeStripe, stripeEnv, stripeEvent, type FakeStripe } from "../support/fake-stripe.ts";
import { readJson } from "../support/http.ts";
import { accountIdOf } from "../support/operator.ts";
import { useGateway } from "../support/server.ts";
import { request, signUpUser, type Browser } from "../support/session.ts";

const fake: FakeStripe = startFakeStripe();
afterAll(() => fake.stop());

describeEachDialect("an open checkout: continue or cancel", (dialect) => {
  const gateway = useGateway(dialect, { FREE_CREDITS_USD: "0", ...stripeEnv(fake) });
  /** A new buyer with one open checkout of the Pro pack. */
  const buyerWithCheckout = async () => {
    const buyer = await signUpUser(gateway().url);
    const { sessionId, url } = await readJson(await buyer.send("POST", "/checkout", { packId: "pro" }));
    return { buyer, sessionId: sessionId as string, url: url as string };
  };
  const listed = async (buyer: Browser, id: string) =>
    (await readJson(await buyer.send("GET", "/account/purchases"))).purchases.find((p: { id: string }) => p.id === id);
  const cancel = async (buyer: Browser, id: string) => {
    const res = await buyer.send("POST", `/account/purchases/${id}/cancel`);
    return { status: res.status, body: await readJson(res) };
  };
  const pay = (id: string) => deliver(gateway().url, stripeEvent("checkout.session.completed", paidSession(fake.sessions.get(id)!)));
  const balanceOf = async (buyer: Browser) => (await gateway().store.getAccount(await accountIdOf(gateway().store, buyer)))!.balance;

  test("lists Stripe's page while the checkout is open, and not once it is paid or past its expiry", async () => {
    const { buyer, sessionId, url } = await buyerWithCheckout();
    expect(url).toBe(fake.sessions.get(sessionId)!.url as string);
    expect(await listed(buyer, sessionId)).toMatchObject({ status: "open", checkoutUrl: url });
    expect((await gateway().store.getCheckout(sessionId))?.checkoutUrl).toBe(url);

    const lapsed = await buyer.send("POST", "/checkout", { packId: "builder" }).then(readJson);
    await gateway().db.run(exec("UPDATE checkout_sessions SET expires_at = ? WHERE id = ?", Date.now() - 1, lapsed.sessionId));
    expect(await listed(buyer, lapsed.sessionId)).not.toHaveProperty("checkoutUrl");

    expect((await pay(sessionId)).status).toBe(200);
    expect(await listed(buyer, sessionId)).toMatchObject({ status: "paid" });
    expect(await listed(buyer, sessionId)).not.toHaveProperty("checkoutUrl");
  });

  test("cancels the checkout at Stripe and answers it as listed; Stripe's later expired event changes nothing", async () => {
    const { buyer, sessionId } = await buyerWithCheckout();
    const before = await listed(buyer, sessionId);
    const { checkoutUrl: _url, ...closed } = { ...before, status: "expired" };
    expect(await cancel(buyer, sessionId)).toEqual({ status: 200, body: closed });
    expect(fake.sessions.get(sessionId)!.status).toBe("expired");
    expect(await listed(buyer, sessionId)).toEqual(closed);

    const event = stripeEvent("checkout.session.expired", fake.sessions.get(sessionId)!);
    expect((await deliver(gateway().url, event)).status).toBe(200);
    expect((await deliver(gateway().url, event)).status).toBe(200);
    expect(await listed(buyer, sessionId)).toEqual(closed);
    expect(await balanceOf(buyer)).toBe(ZERO);
    expect(await cancel(buyer, sessionId)).toEqual({ status: 409, body: { error: "This checkout has already expired or been cancelled" } });
  });

  test("404 for another account's checkout or an unknown id, and Stripe is not asked", async () => {
    const { sessionId } = await buyerWithCheckout();
    const other = await signUpUser(gateway().url);
    expect(await cancel(other, sessionId)).toEqual({ status: 404, body: { error: "Purchase not found" } });
    expect(await cancel(other, "cs_test_unknown")).toEqual({ status: 404, body: { error: "Purchase not found" } });
    // Ids no purchase can have, a NUL among them (which Postgres refuses as a parameter).
    for (const id of ["%00", "cs_test_%00", "cs_%E2%80%AE%0A", "x".repeat(2_000)]) {
      expect(await cancel(other, id)).toEqual({ status: 404, body: { error: "Purchase not found" } });
    }
    expect(fake.sessions.get(sessionId)!.status).toBe("open");
  });

  test("409 for a paid purchase, which stays paid", async () => {
    const { buyer, sessionId } = await buyerWithCheckout();
    expect((await pay(sessionId)).status).toBe(200);
    expect(await cancel(buyer, sessionId)).toEqual({ status: 409, body: { error: "This purchase is paid and cannot be cancelled" } });
    expect(await listed(buyer, sessionId)).toMatchObject({ status: "paid" });
  });

  test("409 when Stripe has the payment before its webhook: the checkout is not marked expired", async () => {
    const { buyer, sessionId } = await buyerWithCheckout();
    fake.sessions.set(sessionId, paidSession(fake.sessions.get(sessionId)!));
    const refused = await cancel(buyer, sessionId);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/completed at Stripe/);
    expect((await gateway().store.getCheckout(sessionId))?.status).toBe("open");
    expect((await pay(sessionId)).status).toBe(200);
    expect(await listed(buyer, sessionId)).toMatchObject({ status: "paid", creditsUsd: "60.00" });
  });

  test("a checkout Stripe has already expired is marked expired", async () => {
    const { buyer, sessionId } = await buyerWithCheckout();
    fake.sessions.set(sessionId, { ...fake.sessions.get(sessionId)!, status: "expired" });
    expect(await cancel(buyer, sessionId)).toMatchObject({ status: 200, body: { id: sessionId, status: "expired" } });
  });

  test("502 when Stripe fails, and nothing changes", async () => {
    const { buyer, sessionId, url } = await buyerWithCheckout();
    fake.failWith({ status: 500, message: "An unknown error occurred" });
    try {
      expect(await cancel(buyer, sessionId)).toEqual({ status: 502, body: { error: CANCEL_FAILED } });
    } finally {
      fake.failWith(null);
    }
    expect(await listed(buyer, sessionId)).toMatchObject({ status: "open", checkoutUrl: url });
    expect(fake.sessions.get(sessionId)!.status).toBe("open");
  });

  describe("the account writes' rules", () => {
    test("401 without a session, 405 for other methods", async () => {
      const { buyer, sessionId } = await buyerWithCheckout();
      const path = `/account/purchases/${sessionId}/cancel`;
      const res = await request(gateway().url, "POST", path);
      expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 401, body: { error: "Unauthorized" } });
      const get = await buyer.send("GET", path);
      expect({ status: get.status, allow: get.headers.get("allow") }).toEqual({ status: 405, allow: "POST" });
    });

    test("a cross-site request is 403 and a form-encoded one 415, and the checkout stays open", async () => {
      const { buyer, sessionId } = await buyerWithCheckout();
      const path = `/account/purchases/${sessionId}/cancel`;
      expect((await buyer.send("POST", path, undefined, { origin: "https://evil.example" })).status).toBe(403);
      expect((await buyer.send("POST", path, "a=1", { "content-type": "application/x-www-form-urlencoded" })).status).toBe(415);
      expect(fake.sessions.get(sessionId)!.status).toBe("open");
    });
  });
});
