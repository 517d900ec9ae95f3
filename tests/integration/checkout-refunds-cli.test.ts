// gateway purchases refund and list through the compiled binary, and refund events reaching
// two gateway processes on one database at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import { runGateway } from "../support/binary.ts";
import { describeEachDialect } from "../support/databases.ts";
import { chargeOf, deliver, disputeOf, paidSession, startFakeStripe, stripeEnv, stripeEvent, type FakeStripe } from "../support/fake-stripe.ts";
import { readJson } from "../support/http.ts";
import { useInstances } from "../support/instances.ts";
import { signUpUser, type Browser } from "../support/session.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;

describeEachDialect("refunds through the CLI, on two gateway instances", (dialect) => {
  const fake: FakeStripe = startFakeStripe();
  afterAll(() => fake.stop());
  const cluster = useInstances(dialect, 2, { FREE_CREDITS_USD: "0", ...stripeEnv(fake) });
  // The OS user as the audit log names it (Bun's os.userInfo() reads $USER).
  const cli = (...args: string[]) => runGateway(args, { DATABASE_URL: cluster().databaseUrl, USER: "ops-alice", ...stripeEnv(fake) });
  let buyer: Browser;
  let sessionId: string;
  let intent: string;

  beforeAll(async () => {
    const url = cluster().instances.at(0).url;
    buyer = await signUpUser(url);
    sessionId = (await readJson(await buyer.send("POST", "/checkout", { packId: "pro" }))).sessionId;
    const paid = paidSession(fake.sessions.get(sessionId)!);
    intent = paid.payment_intent;
    expect((await deliver(url, stripeEvent("checkout.session.completed", paid))).status).toBe(200);
  });

  async function balance(): Promise<Nanos> {
    const { store } = cluster().books;
    const account = (await store.findAccountByEmail(buyer.email))!;
    expect(await store.ledgerSum(account.id)).toBe(account.balance);
    return account.balance;
  }

  test("a refund larger than the unspent credits is refused, exit 1, and Stripe is not asked", async () => {
    // 45 of the 60 credits spent (as a chat would charge them).
    const { store } = cluster().books;
    const accountId = (await store.findAccountByEmail(buyer.email))!.id;
    await store.addCredit({ accountId, amount: usd("-45"), kind: "charge", note: "spent", now: Date.now() });
    const run = await cli("purchases", "refund", sessionId, "--usd", "20");
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr.trim() }).toEqual({
      code: 1, stdout: "",
      stderr: "error: Refusing to refund 20.00 USD: it takes back 24.000000 USD of credits, but only 15.000000 USD of the account's credits are unspent",
    });
    expect(fake.refunds).toEqual([]);
  });

  test("a refund within the unspent credits asks Stripe; the same event reaching both instances at once takes back once", async () => {
    const run = await cli("purchases", "refund", sessionId, "--usd", "12.50", "--json");
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({
      sessionId, refundId: expect.any(String), refundedUsd: "12.50", creditsTakenBackUsd: "15.000000000", status: "succeeded",
    });
    expect(fake.refunds.map((r) => r.form)).toEqual([{ payment_intent: intent, amount: "1250" }]);
    expect(await balance()).toBe(usd("15"));
    // Audited on the buyer's account as the console's refunds are.
    const { store } = cluster().books;
    const [latest] = await store.auditEvents((await store.findAccountByEmail(buyer.email))!.id, 0, 1);
    expect([latest?.type, latest?.detail]).toEqual([
      "purchase_refunded", `refund ${JSON.parse(run.stdout).refundId} of 12.50 USD of checkout ${sessionId} by cli (OS user ops-alice)`,
    ]);

    const event = stripeEvent("charge.refunded", fake.charge(intent));
    const answers = await cluster().instances.spread(6, (url) => deliver(url, event));
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(await balance()).toBe(usd("0"));
  });

  test("a dispute's created and closed events racing on both instances, in either order, hold and give back once", async () => {
    const created = stripeEvent("charge.dispute.created", disputeOf(intent, 3750, "needs_response"));
    const won = stripeEvent("charge.dispute.closed", disputeOf(intent, 3750, "won"));
    const events = [won, created, won, created];
    const answers = await cluster().instances.spread(events.length, (url, i) => deliver(url, events[i]));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await balance()).toBe(usd("0"));
  });

  test("purchases list shows what was refunded and disputed", async () => {
    const run = await cli("purchases", "list", "--email", buyer.email, "--json");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({
      id: sessionId, paidUsd: "50.00", refundedUsd: "12.50", creditsTakenBackUsd: "15.000000000", disputedUsd: "37.50", disputeStatus: "won",
    })]);
    const table = await cli("purchases", "list", "--email", buyer.email);
    expect(table.stdout).toMatch(/refunded USD │ dispute/);
    expect(table.stdout).toMatch(/│ 12\.50\s+│ won \(37\.50 USD\)/);
  });

  test("an unknown purchase is an error, exit 1", async () => {
    const run = await cli("purchases", "refund", "cs_test_unknown");
    expect({ code: run.code, stderr: run.stderr.trim() }).toEqual({ code: 1, stderr: "error: No purchase cs_test_unknown" });
  });

  test("the refund event for a charge of no purchase of this gateway is acknowledged and moves nothing", async () => {
    const res = await deliver(cluster().instances.at(1).url, stripeEvent("charge.refunded", chargeOf("pi_someone_else", 999, 999)));
    expect(res.status).toBe(200);
    expect(await balance()).toBe(usd("0"));
  });
});
