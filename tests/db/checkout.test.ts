import { beforeAll, describe, expect, test } from "bun:test";
import { CHECKOUT_HOLD_MS, CHECKOUT_OPEN_MS, utcMonthStart, type CheckoutHold } from "../../src/core/checkout/sessions.ts";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import { CREDIT_PACKS, type PackId } from "../../src/core/checkout/packs.ts";
import type { Account } from "../../src/core/store.ts";
import type { Store } from "../../src/core/ports.ts";
import type { Database } from "../../src/db/database.ts";
import { first, int } from "../../src/db/sql.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";

const HOUR = 60 * 60 * 1000;
const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
let counter = 0;

describeEachDialect("the checkout store", (dialect) => {
  const opened = useStore(dialect);
  let db: Database;
  let store: Store;
  let account: Account;
  beforeAll(async () => {
    ({ db, store } = opened());
    account = await newAccount();
  });

  async function newAccount(): Promise<Account> {
    const created = await store.createAccount({ email: `buyer-${++counter}@example.com`, passwordHash: null, now: Date.UTC(2026, 0, 1) });
    if (!created) throw new Error("e-mail taken");
    return created;
  }

  // The capacity is platform-wide, so each test works in a month of its own.
  let month = 0;
  const nextMonth = () => Date.UTC(2030, month++, 15, 12);

  const hold = (packId: PackId, now: number, capacity: string | null, accountId = account.id) => {
    const input: CheckoutHold = {
      accountId, pack: CREDIT_PACKS[packId], capacity: capacity === null ? null : usd(capacity), monthStart: utcMonthStart(now),
      openedSince: now - CHECKOUT_OPEN_MS, holdExpiresAt: now + CHECKOUT_HOLD_MS, now,
    };
    return store.holdCheckout(input);
  };
  /** A hold turned into an open Stripe session, as POST /checkout leaves it. */
  const open = async (packId: PackId, now: number, capacity: string | null = null, accountId = account.id) => {
    const held = await hold(packId, now, capacity, accountId);
    if (!("holdId" in held)) throw new Error("capacity exhausted");
    const id = `cs_test_${++counter}`;
    await store.openCheckout(held.holdId, { id, expiresAt: now + CHECKOUT_OPEN_MS, url: `https://checkout.stripe.test/c/pay/${id}` });
    return id;
  };
  const pay = (sessionId: string, now: number, eventId = `evt_${++counter}`) =>
    store.recordCheckoutPayment({ eventId, eventType: "checkout.session.completed", sessionId, fallback: null, now });
  const balanceOf = async (id: string) => (await store.getAccount(id))!.balance;

  describe("capacity", () => {
    test("holds while the total stays within the cap, reaching it exactly, and refuses the pack that would pass it", async () => {
      const now = nextMonth();
      expect(await hold("pro", now, "120")).toHaveProperty("holdId");
      expect(await hold("pro", now + 1, "120")).toHaveProperty("holdId");
      expect(await hold("builder", now + 2, "120")).toEqual({ exhausted: true });
    });

    test("counts this month's paid purchases and the open checkouts, in credits not price", async () => {
      const now = nextMonth();
      await pay(await open("team", now), now + 1);
      await open("builder", now + 2);
      // 120 paid + 30 open = 150 of 200: 50 left, less than Pro's 60 credits though more than its $50 price.
      expect(await hold("pro", now + 3, "200")).toEqual({ exhausted: true });
      expect(await hold("builder", now + 4, "200")).toHaveProperty("holdId");
    });

    test("leaves out last month's purchases, checkouts opened over 24 hours ago or past their expiry, and closed ones", async () => {
      const now = nextMonth();
      const lastMonth = utcMonthStart(now) - HOUR;
      await pay(await open("scale", lastMonth - HOUR), lastMonth);
      await open("scale", now - CHECKOUT_OPEN_MS - 1);
      const expiring = await hold("scale", now - HOUR, null);
      await store.openCheckout((expiring as { holdId: string }).holdId, { id: `cs_test_${++counter}`, expiresAt: now, url: "https://checkout.stripe.test/c/pay/expiring" });
      const expired = await open("scale", now - HOUR);
      await store.closeCheckout({ eventId: `evt_${++counter}`, eventType: "checkout.session.expired", sessionId: expired, status: "expired", now });
      const failed = await open("scale", now - HOUR);
      await store.closeCheckout({ eventId: `evt_${++counter}`, eventType: "checkout.session.async_payment_failed", sessionId: failed, status: "failed", now });
      expect(await hold("scale", now, "250")).toHaveProperty("holdId");
    });

    test("a hold whose session could not be created gives its capacity back", async () => {
      const now = nextMonth();
      const held = await hold("scale", now, "250");
      expect(await hold("scale", now + 1, "250")).toEqual({ exhausted: true });
      await store.dropCheckoutHold((held as { holdId: string }).holdId);
      expect(await hold("scale", now + 2, "250")).toHaveProperty("holdId");
    });

    test("a hold left by a crashed request lapses", async () => {
      const now = nextMonth();
      await hold("scale", now, "250");
      expect(await hold("scale", now + CHECKOUT_HOLD_MS - 1, "250")).toEqual({ exhausted: true });
      expect(await hold("scale", now + CHECKOUT_HOLD_MS, "250")).toHaveProperty("holdId");
    });

    test("concurrent checkouts never pass the cap together", async () => {
      const now = nextMonth();
      const buyers = await Promise.all(Array.from({ length: 6 }, () => newAccount()));
      const results = await Promise.all(buyers.map((b, i) => hold("pro", now + i, "180", b.id)));
      expect(results.filter((r) => "holdId" in r)).toHaveLength(3);
    });

    test("without a cap every checkout is held", async () => {
      const now = nextMonth();
      for (let i = 0; i < 5; i++) expect(await hold("scale", now + i, null)).toHaveProperty("holdId");
    });
  });

  describe("payments", () => {
    test("credit the session's pack once as a purchase, keyed by the session, and mark it paid", async () => {
      const buyer = await newAccount();
      const now = nextMonth();
      const sessionId = await open("team", now, null, buyer.id);
      expect(await pay(sessionId, now + 5)).toEqual({ credited: true, accountId: buyer.id, credits: usd("120"), balance: usd("120") });
      const entry = await db.run(first("SELECT kind, amount_nanos, idempotency_key FROM ledger_entries WHERE account_id = ?", buyer.id));
      expect(entry).toEqual({ kind: "purchase", amount_nanos: 120_000_000_000n, idempotency_key: sessionId } as never);
      const [record] = await store.listCheckouts(buyer.id, { paidOnly: true });
      expect(record).toEqual({
        id: sessionId, accountId: buyer.id, packId: "team", credits: usd("120"), status: "paid", createdAt: now,
        expiresAt: now + CHECKOUT_OPEN_MS, paidAt: now + 5, receiptUrl: null, paymentIntentId: null, amountPaidCents: null,
        refundedCents: 0n, refundedCredits: usd("0"), disputedCents: null, disputeStatus: null,
        autoTopup: false, invoiceId: null, invoiceUrl: null, checkoutUrl: `https://checkout.stripe.test/c/pay/${sessionId}`,
      });
    });

    test("a cancelled checkout is marked expired, gives its capacity back, and a paid one stays paid", async () => {
      const buyer = await newAccount();
      const now = nextMonth();
      const cancelled = await open("scale", now, "250", buyer.id);
      expect(await hold("scale", now + 1, "250")).toEqual({ exhausted: true });
      await store.expireCheckout(cancelled);
      expect((await store.getCheckout(cancelled))?.status).toBe("expired");
      expect(await hold("scale", now + 2, "250")).toHaveProperty("holdId");
      const paid = await open("builder", now + 3, null, buyer.id);
      await pay(paid, now + 4);
      await store.expireCheckout(paid);
      expect((await store.getCheckout(paid))?.status).toBe("paid");
    });

    test("a replayed event, another event for the same session, or concurrent deliveries credit nothing more", async () => {
      const buyer = await newAccount();
      const now = nextMonth();
      const sessionId = await open("pro", now, null, buyer.id);
      const outcomes = await Promise.all([
        pay(sessionId, now, "evt_same"),
        pay(sessionId, now, "evt_same"),
        pay(sessionId, now, "evt_same"),
        store.recordCheckoutPayment({ eventId: "evt_async", eventType: "checkout.session.async_payment_succeeded", sessionId, fallback: null, now }),
      ]);
      expect(outcomes.filter((o) => o.credited)).toHaveLength(1);
      expect(await pay(sessionId, now + 1, "evt_same")).toEqual({ credited: false, reason: "duplicate" });
      expect(await balanceOf(buyer.id)).toBe(usd("60"));
      expect(await store.ledgerSum(buyer.id)).toBe(usd("60"));
    });

    test("a session with no record is credited from its metadata's pack, and recorded as paid", async () => {
      const buyer = await newAccount();
      const now = nextMonth();
      const fallback = { accountId: buyer.id, packId: "builder", credits: usd("30") };
      const outcome = await store.recordCheckoutPayment({ eventId: `evt_${++counter}`, eventType: "checkout.session.completed", sessionId: "cs_test_lost", fallback, now });
      expect(outcome).toEqual({ credited: true, accountId: buyer.id, credits: usd("30"), balance: usd("30") });
      expect((await store.listCheckouts(buyer.id, { paidOnly: true })).map((c) => [c.id, c.status, c.paidAt])).toEqual([["cs_test_lost", "paid", now]]);
    });

    test("a session with neither a record nor a known account in its metadata credits nobody", async () => {
      const now = nextMonth();
      const stranger = { accountId: "no-such-account", packId: "builder", credits: usd("30") };
      for (const fallback of [null, stranger]) {
        const outcome = await store.recordCheckoutPayment({ eventId: `evt_${++counter}`, eventType: "checkout.session.completed", sessionId: `cs_test_other_${counter}`, fallback, now });
        expect(outcome).toEqual({ credited: false, reason: "unknown_session" });
      }
      const purchases = await db.run(first("SELECT COUNT(*) AS n FROM ledger_entries WHERE kind = 'purchase' AND idempotency_key LIKE 'cs_test_other_%'"));
      expect(int(purchases?.n)).toBe(0);
    });

    test("closing a paid session leaves it paid", async () => {
      const buyer = await newAccount();
      const now = nextMonth();
      const sessionId = await open("builder", now, null, buyer.id);
      await pay(sessionId, now + 1);
      await store.closeCheckout({ eventId: `evt_${++counter}`, eventType: "checkout.session.expired", sessionId, status: "expired", now: now + 2 });
      expect((await store.listCheckouts(buyer.id, { paidOnly: false })).map((c) => c.status)).toEqual(["paid"]);
    });
  });

  test("lists an account's purchases newest first; with paidOnly false its unpaid sessions too", async () => {
    const buyer = await newAccount();
    const now = nextMonth();
    const oldest = await open("builder", now, null, buyer.id);
    const unpaid = await open("scale", now + 1, null, buyer.id);
    const newest = await open("pro", now + 2, null, buyer.id);
    await pay(oldest, now + 3);
    await pay(newest, now + 4);
    expect((await store.listCheckouts(buyer.id, { paidOnly: true })).map((c) => c.id)).toEqual([newest, oldest]);
    expect((await store.listCheckouts(buyer.id, { paidOnly: false })).map((c) => [c.id, c.status])).toEqual([
      [newest, "paid"], [unpaid, "open"], [oldest, "paid"],
    ]);
    expect(await store.listCheckouts((await newAccount()).id, { paidOnly: false })).toEqual([]);
  });
});
