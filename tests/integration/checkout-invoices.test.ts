// STRIPE_INVOICES: on, Checkout requires the billing address, collects tax IDs and issues an
// invoice, whose hosted page the purchases listing links beside the receipt; off, none of it.
import { afterAll, expect, test } from "bun:test";
import { describeEachDialect } from "../support/databases.ts";
import { deliver, invoiceUrlFor, paidSession, receiptFor, startFakeStripe, stripeEnv, stripeEvent } from "../support/fake-stripe.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeStripe();
afterAll(() => fake.stop());

const INVOICE_FIELDS = ["billing_address_collection", "tax_id_collection[enabled]", "invoice_creation[enabled]"];

describeEachDialect("Stripe invoices", (dialect) => {
  const on = useGateway(dialect, { ...stripeEnv(fake), STRIPE_INVOICES: "on", FREE_CREDITS_USD: "0" });
  const off = useGateway(dialect, { ...stripeEnv(fake), FREE_CREDITS_USD: "0" });

  /** Buys a Pro pack through `url`: what the fake received, and the purchase as listed once its links are in. */
  async function buy(url: string, links: (p: Record<string, unknown>) => boolean) {
    const buyer: Browser = await signUpUser(url);
    const { sessionId } = await readJson(await buyer.send("POST", "/checkout", { packId: "pro" }));
    const sent = fake.received.at(-1)!.form;
    const paid = paidSession(fake.sessions.get(sessionId)!);
    expect((await deliver(url, stripeEvent("checkout.session.completed", paid))).status).toBe(200);
    let listed: Record<string, unknown> = {};
    await waitFor(async () => {
      [listed] = (await readJson(await buyer.send("GET", "/account/purchases"))).purchases;
      return links(listed);
    }, "the purchase's links");
    return { sent, paid, listed };
  }

  test("on: the session asks for the billing address, tax IDs and an invoice; the purchase links the invoice beside the receipt", async () => {
    const { sent, paid, listed } = await buy(on().url, (p) => p.receiptUrl !== null && p.invoiceUrl !== null);
    expect(Object.fromEntries(INVOICE_FIELDS.map((f) => [f, sent[f]]))).toEqual({
      billing_address_collection: "required", "tax_id_collection[enabled]": "true", "invoice_creation[enabled]": "true",
    });
    expect(listed).toMatchObject({ status: "paid", receiptUrl: receiptFor(paid.payment_intent), invoiceUrl: invoiceUrlFor(paid.invoice as string) });
  });

  test("off: none of them, and no invoice listed", async () => {
    const { sent, listed } = await buy(off().url, (p) => p.receiptUrl !== null);
    expect(INVOICE_FIELDS.filter((f) => f in sent)).toEqual([]);
    expect(listed).toMatchObject({ status: "paid", invoiceUrl: null });
  });
});
