// Automatic top-up on two gateways sharing one Postgres database: the claim of an attempt and
// the credit of its payment live in the database, so neither is doubled by a second instance.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeOnPostgres } from "../support/databases.ts";
import { deliver, paidSession, startFakeStripe, stripeEnv, stripeEvent } from "../support/fake-stripe.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { generate } from "../support/keys.ts";
import { accountIdOf } from "../support/operator.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { signUpUser, browserWith } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
/** $0.50 of gpt-4.1 output. */
const HALF_USD = { prompt_tokens: 0, completion_tokens: 62_500 };

const fake = startFakeStripe();
const upstream = startFakeUpstream();

describeOnPostgres("automatic top-up on two instances sharing Postgres", () => {
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    const env = { ...stripeEnv(fake), ...providerEnv(upstream), FREE_CREDITS_USD: "0", MAX_CONCURRENT_REQUESTS: "50" };
    a = await startGateway("postgres", env);
    b = await startGateway("postgres", env, a.testDb);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await fake.stop();
    await upstream.stop();
  });

  /** A buyer armed on both instances: settings and card through A, then the settings put again through B, which reloads its armed accounts. */
  async function armedOnBoth() {
    const buyer = await signUpUser(a.url);
    const settings = { packId: "builder", thresholdUsd: "25", monthlyMaxUsd: "100" };
    expect((await buyer.send("PUT", "/settings/auto-topup", settings)).status).toBe(200);
    const { sessionId } = await readJson(await buyer.send("POST", "/checkout", { packId: "builder" }));
    expect((await deliver(a.url, stripeEvent("checkout.session.completed", paidSession(fake.sessions.get(sessionId)!)))).status).toBe(200);
    const onB = browserWith(b.url, buyer.email, buyer.cookie);
    expect((await onB.send("PUT", "/settings/auto-topup", settings)).status).toBe(200);
    return { buyer, accountId: await accountIdOf(a.store, buyer), key: (await generate(buyer)).key as string };
  }
  const madeFor = (accountId: string) => [...fake.intents.intents.values()].filter((i) => (i.metadata as Record<string, string>).accountId === accountId);

  test("20 requests over both instances crossing the threshold make one PaymentIntent; its event, delivered to both at once, credits once", async () => {
    const { accountId, key } = await armedOnBoth();
    const release = fake.intents.hold();
    upstream.behave({ usage: HALF_USD });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => postChat((i % 2 === 0 ? a : b).url, key, hello("gpt-4.1"))));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    await waitFor(() => madeFor(accountId).length > 0, "the PaymentIntent");
    release();
    expect(madeFor(accountId)).toHaveLength(1);

    const event = stripeEvent("payment_intent.succeeded", madeFor(accountId)[0]!);
    const deliveries = await Promise.all([a, b, a, b].map((g) => deliver(g.url, event)));
    expect(deliveries.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // A second event about the same payment (Stripe may send one again under a new id) credits nothing more.
    expect((await deliver(b.url, stripeEvent("payment_intent.succeeded", madeFor(accountId)[0]!))).status).toBe(200);
    const account = (await a.store.getAccount(accountId))!;
    expect(account.balance).toBe(usd("50"));
    expect(await a.store.ledgerSum(accountId)).toBe(account.balance);
    expect(madeFor(accountId)).toHaveLength(1);
  });
});
