import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../../src/core/time.ts";
import { describeEachDialect } from "../support/databases.ts";
import { deliver, paidSession, receiptFor, startFakeStripe, stripeEnv, stripeEvent, type FakeStripe } from "../support/fake-stripe.ts";
import { readJson } from "../support/http.ts";
import { accountIdOf } from "../support/operator.ts";
import { request, signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";
import { insertUsageLog } from "../support/usage-logs.ts";
import { waitFor } from "../support/wait.ts";

const fake: FakeStripe = startFakeStripe();
afterAll(() => fake.stop());

const T0 = Date.UTC(2026, 2, 14, 9, 0, 0);

describeEachDialect("the dashboard's usage filters, spend per model and purchases", (dialect) => {
  const gateway = useGateway(dialect, { FREE_CREDITS_USD: "0", ...stripeEnv(fake) });

  test.each(["/account/spend/models", "/account/purchases"])("GET %s without a session is 401; other methods 405", async (path) => {
    const res = await request(gateway().url, "GET", path);
    expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 401, body: { error: "Unauthorized" } });
    expect((await request(gateway().url, "POST", path)).status).toBe(405);
  });

  describe("GET /account/usage filters", () => {
    let user: Browser;
    let keyId: string;
    beforeAll(async () => {
      user = await signUpUser(gateway().url);
      await user.send("POST", "/keys/generate", { name: "CI" });
      keyId = (await readJson(await user.send("GET", "/keys/generate"))).keys[0].id;
      const accountId = await accountIdOf(gateway().store, user);
      const seed = (createdAt: number, model: string, status: "success" | "error", withKey: boolean) =>
        insertUsageLog(gateway().db, { accountId, createdAt, model, status, keyId: withKey ? keyId : null, promptTokens: createdAt % 1000 });
      await seed(T0, "gpt-4o", "success", true);
      await seed(T0 + 1, "gpt-5", "error", true);
      await seed(T0 + DAY_MS + 2, "gpt-4o", "error", false);
      await seed(T0 + 2 * DAY_MS + 3, "gpt-5", "success", false);
    });
    const tokens = async (query: string) => {
      const res = await user.send("GET", `/account/usage?${query}`);
      expect(res.status).toBe(200);
      return (await readJson(res)).usage.map((u: { promptTokens: number }) => u.promptTokens);
    };

    test.each([
      ["", [3, 2, 1, 0]],
      ["model=gpt-4o", [2, 0]],
      ["status=error", [2, 1]],
      ["from=2026-03-15", [3, 2]],
      ["to=2026-03-15", [2, 1, 0]],
      ["from=2026-03-15&to=2026-03-15", [2]],
      ["model=gpt-5&status=success&from=2026-03-14", [3]],
      ["model=&status=&from=&to=&key=", [3, 2, 1, 0]],
    ])("?%s narrows the table", async (query, expected) => {
      expect(await tokens(query)).toEqual(expected);
    });

    test("key=<id> shows that key's requests only, and another account's key shows nothing", async () => {
      expect(await tokens(`key=${keyId}`)).toEqual([1, 0]);
      const other = await signUpUser(gateway().url);
      expect((await readJson(await other.send("GET", `/account/usage?key=${keyId}`))).usage).toEqual([]);
    });

    test.each([
      ["status=failed", "status must be success, error or refused"],
      ["from=2026-02-30", "from must be a date such as 2026-03-14"],
      ["to=yesterday", "to must be a date such as 2026-03-14"],
      ["from=2026-03-16&to=2026-03-15", "from must not be after to"],
      [`model=${"m".repeat(129)}`, "model must be at most 128 characters"],
    ])("?%s is 400", async (query, error) => {
      const res = await user.send("GET", `/account/usage?${query}`);
      expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 400, body: { error } });
    });
  });

  describe("GET /account/spend/models", () => {
    test("gives each model's spend per UTC day, the five largest alone and the rest as other, exactly", async () => {
      const user = await signUpUser(gateway().url);
      const accountId = await accountIdOf(gateway().store, user);
      const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
      const spends: [string, bigint][] = [["a", 60n], ["b", 50n], ["c", 40n], ["d", 30n], ["e", 20n], ["f", 7n], ["g", 3n]];
      for (const [model, costNanos] of spends) await insertUsageLog(gateway().db, { accountId, createdAt: today, model, costNanos });
      await insertUsageLog(gateway().db, { accountId, createdAt: today - DAY_MS, model: "a", costNanos: 1n });
      await insertUsageLog(gateway().db, { accountId, createdAt: today - 3 * DAY_MS, model: "a", costNanos: 1_000n }); // before the window

      const body = await readJson(await user.send("GET", "/account/spend/models?days=3"));
      const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      expect(body.days).toBe(3);
      expect(body.dates).toEqual([date(today - 2 * DAY_MS), date(today - DAY_MS), date(today)]);
      const nano = (n: number) => `0.${String(n).padStart(9, "0")}`;
      expect(body.models).toEqual([
        { model: "a", spendUsd: nano(61), requests: 2, daily: [nano(0), nano(1), nano(60)] },
        ...[["b", 50], ["c", 40], ["d", 30], ["e", 20]].map(([model, n]) => ({ model, spendUsd: nano(n as number), requests: 1, daily: [nano(0), nano(0), nano(n as number)] })),
        { model: "other", spendUsd: nano(10), requests: 2, daily: [nano(0), nano(0), nano(10)] },
      ]);
    });

    test("days defaults to 30 and is bounded", async () => {
      const user = await signUpUser(gateway().url);
      expect(await readJson(await user.send("GET", "/account/spend/models"))).toMatchObject({ days: 30, models: [] });
      expect((await user.send("GET", "/account/spend/models?days=91")).status).toBe(400);
    });
  });

  describe("GET /account/purchases", () => {
    test("lists the checkouts, newest first, with Stripe's receipt once the payment is in", async () => {
      const buyer = await signUpUser(gateway().url);
      const first = (await readJson(await buyer.send("POST", "/checkout", { packId: "pro" }))).sessionId;
      const second = (await readJson(await buyer.send("POST", "/checkout", { packId: "builder" }))).sessionId;
      const session = fake.sessions.get(first)!;
      expect((await deliver(gateway().url, stripeEvent("checkout.session.completed", paidSession(session)))).status).toBe(200);
      const read = async () => (await readJson(await buyer.send("GET", "/account/purchases"))).purchases;
      await waitFor(async () => (await read()).some((p: { receiptUrl: string | null }) => p.receiptUrl !== null), "the receipt");
      const purchases = await read();
      expect(purchases.sort((a: { packId: string }, b: { packId: string }) => a.packId.localeCompare(b.packId))).toEqual([
        { id: second, createdAt: expect.stringMatching(/Z$/), packId: "builder", packName: "Builder", priceUsd: "25", creditsUsd: "30.00", status: "open", paidAt: null, receiptUrl: null, invoiceUrl: null, source: "checkout", checkoutUrl: fake.sessions.get(second)!.url },
        { id: first, createdAt: expect.stringMatching(/Z$/), packId: "pro", packName: "Pro", priceUsd: "50", creditsUsd: "60.00", status: "paid", paidAt: expect.stringMatching(/Z$/), receiptUrl: receiptFor(paidSession(session).payment_intent), invoiceUrl: null, source: "checkout" },
      ]);
      const other = await signUpUser(gateway().url);
      expect(await readJson(await other.send("GET", "/account/purchases"))).toEqual({ purchases: [] });
    });
  });
});
