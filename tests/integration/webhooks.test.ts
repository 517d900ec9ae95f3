// Account webhooks, through HTTP against a receiver on loopback: each event signed as Stripe
// signs, retried with the same id after a failure, refused at delivery when the receiver's name
// resolves to a private address, and cut at the timeout without holding a chat request.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { formatUsd, parseUsd, type Nanos } from "../../src/core/money.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { verifyEmail } from "../support/accounts.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { startGateway, useGateway, type TestGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";
import { startReceiver, verified } from "../support/webhook-receiver.ts";

describeEachDialect("an account's webhook endpoint", (dialect) => {
  const fake = startFakeUpstream();
  const receiver = startReceiver();
  afterAll(() => Promise.all([fake.stop(), receiver.stop()]));
  const gateway = useGateway(dialect, { ...providerEnv(fake), WEBHOOK_ALLOW_PRIVATE: "1", ALERT_INTERVAL_MS: "10", WEBHOOK_TIMEOUT_MS: "500" });
  let user: Browser;
  let secret: string;
  let accountId: string;
  const expectBalanceOf = async (id: string) => formatUsd((await gateway().store.getAccount(id))!.balance, 9);
  const deliveries = async () => (await readJson(await user.send("GET", "/settings/webhook"))).deliveries as Record<string, unknown>[];
  const credit = (usd: string, kind: "grant" | "adjustment" = "grant") =>
    gateway().store.addCredit({ accountId, amount: parseUsd(usd, { signed: true }) as Nanos, kind, note: "test", now: Date.now() });

  beforeAll(async () => {
    user = await signUpUser(gateway().url);
    await verifyEmail(gateway().store, user.email);
    accountId = (await gateway().store.findAccountByEmail(user.email))!.id;
    const res = await user.send("PUT", "/settings/webhook", { url: receiver.url });
    expect(res.status).toBe(200);
    const saved = await readJson(res);
    expect(saved).toEqual({ url: receiver.url, secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/) });
    secret = saved.secret;
  });
  beforeEach(() => receiver.answerWith(() => 200));

  test("the settings show the endpoint, never its secret", async () => {
    const view = await readJson(await user.send("GET", "/settings/webhook"));
    expect(view.url).toBe(receiver.url);
    expect(JSON.stringify(view)).not.toContain(secret);
  });

  test("credits.granted and balance.low arrive signed, with the event's data", async () => {
    await user.send("PATCH", "/settings/alert-threshold", { threshold: 4 });
    await credit("2");
    await credit("-3.5", "adjustment");
    await waitFor(() => receiver.of("credits.granted").length === 1 && receiver.of("balance.low").length === 1, "two events", 5_000);
    const [granted] = receiver.of("credits.granted");
    expect(granted!.event).toEqual({
      id: expect.any(String), type: "credits.granted", createdAt: expect.stringMatching(/Z$/),
      data: { amountUsd: "2.000000000", balanceUsd: "7.000000000", note: "test" },
    });
    expect(receiver.of("balance.low")[0]!.event.data).toEqual({ balanceUsd: "3.500000000", thresholdUsd: "4.000000000" });
    for (const got of [granted!, receiver.of("balance.low")[0]!]) expect(verified(secret, got)).toBe(true);
    expect(verified("whsec_other", granted!)).toBe(false);
  });

  test("balance.low arrives when a chat charge crosses the threshold (Postgres: inside the settlement's one statement)", async () => {
    const other = await signUpUser(gateway().url);
    await verifyEmail(gateway().store, other.email);
    const otherId = (await gateway().store.findAccountByEmail(other.email))!.id;
    const otherSecret = (await readJson(await other.send("PUT", "/settings/webhook", { url: receiver.url }))).secret;
    await other.send("PATCH", "/settings/alert-threshold", { threshold: 1 });
    // $5 of free credits, less $3.999999: just above the threshold, which the next charge crosses.
    await gateway().store.addCredit({ accountId: otherId, amount: parseUsd("-3.999999", { signed: true }) as Nanos, kind: "adjustment", note: "test", now: Date.now() });
    const { key } = await readJson(await other.send("POST", "/keys/generate", {}));
    expect((await postChat(gateway().url, key, hello())).status).toBe(200);
    const mine = () => receiver.of("balance.low").filter((r) => verified(otherSecret, r));
    await waitFor(() => mine().length === 1, "the balance.low event of the chat charge", 5_000);
    const { data } = mine()[0]!.event;
    expect(data.thresholdUsd).toBe("1.000000000");
    expect(Number(data.balanceUsd)).toBeLessThan(1);
    expect(await expectBalanceOf(otherId)).toBe(data.balanceUsd as string);
  });

  test("key.revoked and key.limit_reached (once per key, limit and hour) arrive", async () => {
    const { key } = await readJson(await user.send("POST", "/keys/generate", { name: "capped", rateLimitRequestsPerHour: 1 }));
    expect((await postChat(gateway().url, key, hello())).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await postChat(gateway().url, key, hello())).status).toBe(429);
    const { id } = (await readJson(await user.send("GET", "/keys/generate"))).keys.find((k: { name: string }) => k.name === "capped");
    expect((await user.send("DELETE", `/keys/${id}`)).status).toBe(200);
    await waitFor(() => receiver.of("key.revoked").length === 1 && receiver.of("key.limit_reached").length === 1, "the key's events", 5_000);
    expect(receiver.of("key.limit_reached")[0]!.event.data).toEqual({ keyId: id, limit: "requests_per_hour" });
    expect(receiver.of("key.revoked")[0]!.event.data).toMatchObject({ keyId: id, name: "capped", reason: "revoked" });
  });

  test("purchase.completed arrives when a payment is credited", async () => {
    const sessionId = `cs_test_${crypto.randomUUID()}`;
    await gateway().store.recordCheckoutPayment({
      eventId: `evt_${crypto.randomUUID()}`, eventType: "checkout.session.completed", sessionId,
      fallback: { accountId, packId: "builder", credits: parseUsd("10") as Nanos }, now: Date.now(),
    });
    await waitFor(() => receiver.of("purchase.completed").length === 1, "the purchase event", 5_000);
    expect(receiver.of("purchase.completed")[0]!.event.data).toMatchObject({ amountUsd: "10.000000000" });
  });

  test("a 500 is answered by a retry of the same event, with the same id; the settings show the answers", async () => {
    let calls = 0;
    receiver.answerWith((got) => (got.event.type === "credits.granted" && ++calls === 1 ? 500 : 200));
    const before = receiver.received.length;
    await credit("1");
    const granted = () => receiver.received.slice(before).filter((r) => r.event.type === "credits.granted");
    await waitFor(() => granted().length >= 2, "the retry", 10_000);
    const [first, second] = granted();
    expect(second!.event.id).toBe(first!.event.id);
    expect(second!.body).toBe(first!.body);
    // The receiver has answered; the answer is written just after.
    await waitFor(async () => (await deliveries()).find((d) => d.id === first!.event.id)?.answer === "200", "the answer to be kept", 5_000);
    expect((await deliveries()).find((d) => d.id === first!.event.id)).toMatchObject({ type: "credits.granted", attempts: 2, sentAt: expect.any(String) });
  });

  test("a receiver that never answers is cut at the timeout, and chat goes on meanwhile", async () => {
    receiver.answerWith(() => "hang");
    const before = receiver.received.length;
    await credit("1");
    await waitFor(() => receiver.received.length > before, "the delivery to start", 5_000);
    const { key } = await readJson(await user.send("POST", "/keys/generate", { name: "meanwhile" }));
    expect((await postChat(gateway().url, key, hello())).status).toBe(200);
    const id = receiver.received[before]!.event.id;
    await waitFor(async () => (await deliveries()).find((d) => d.id === id)?.answer === "timed out after 0.5 s", "the timeout", 5_000);
  });

  test("DELETE removes the endpoint: nothing more is sent", async () => {
    expect(await readJson(await user.send("DELETE", "/settings/webhook"))).toEqual({ success: true });
    expect((await user.send("DELETE", "/settings/webhook")).status).toBe(200); // none left: nothing to refuse
    const before = receiver.received.length;
    await credit("1");
    await Bun.sleep(200);
    expect(receiver.received.length).toBe(before);
    expect((await readJson(await user.send("GET", "/settings/webhook"))).url).toBeNull();
  });
});

describeEachDialect("webhook addresses, without WEBHOOK_ALLOW_PRIVATE", (dialect) => {
  // A name that resolves publicly when saved and privately at delivery, as DNS rebinding does.
  let answers = [{ address: "8.8.8.8", family: 4 }];
  let gateway: TestGateway;
  let user: Browser;
  beforeAll(async () => {
    gateway = await startGateway(dialect, { ALERT_INTERVAL_MS: "10" }, undefined, undefined, { resolveHost: async () => answers });
    user = await signUpUser(gateway.url);
  });
  afterAll(() => gateway.stop());

  test.each([
    ["http://receiver.example/hook", "url must use https"],
    ["https://127.0.0.1/hook", "url must point at a public address: 127.0.0.1 is in the loopback range"],
    ["https://[::ffff:169.254.169.254]/hook", "url must point at a public address: 169.254.169.254 is in the link local range"],
    ["https://10.0.0.5/hook", "url must point at a public address: 10.0.0.5 is in the private range"],
    ["https://[::127.0.0.1]/", "url must point at a public address: 127.0.0.1 is in the loopback range"],
    ["https://[::169.254.169.254]/hook", "url must point at a public address: 169.254.169.254 is in the link local range"],
    ["https://[64:ff9b::127.0.0.1]/hook", "url must point at a public address: 64:ff9b::7f00:1 (127.0.0.1) is in the loopback range"],
    ["https://user:pw@receiver.example/hook", "url must not carry a user name or password"],
    ["not a url", "url must be a URL such as https://example.com/hooks/gateway"],
  ])("refuses %p when saved", async (url, message) => {
    const res = await user.send("PUT", "/settings/webhook", { url });
    expect(res.status).toBe(400);
    expect(await readJson(res)).toEqual({ error: message });
  });

  test("refuses a name that resolves to a private range when saved", async () => {
    answers = [{ address: "8.8.8.8", family: 4 }, { address: "192.168.1.9", family: 4 }];
    const res = await user.send("PUT", "/settings/webhook", { url: "https://receiver.example/hook" });
    expect(await readJson(res)).toEqual({ error: "url must point at a public address: receiver.example resolves to 192.168.1.9, in the private range" });
  });

  test("refuses a name that resolves to an IPv6 address carrying a loopback IPv4 one", async () => {
    answers = [{ address: "::7f00:1", family: 6 }];
    const res = await user.send("PUT", "/settings/webhook", { url: "https://receiver.example/hook" });
    expect(await readJson(res)).toEqual({ error: "url must point at a public address: receiver.example resolves to 127.0.0.1, in the loopback range" });
  });

  test("checks the name again at each delivery: one rebound to a private address receives nothing", async () => {
    answers = [{ address: "8.8.8.8", family: 4 }];
    expect((await user.send("PUT", "/settings/webhook", { url: "https://receiver.example/hook" })).status).toBe(200);
    answers = [{ address: "10.0.0.5", family: 4 }];
    const accountId = (await gateway.store.findAccountByEmail(user.email))!.id;
    await gateway.store.addCredit({ accountId, amount: parseUsd("1") as Nanos, kind: "grant", note: "test", now: Date.now() });
    const answer = async () => ((await readJson(await user.send("GET", "/settings/webhook"))).deliveries[0]?.answer as string | undefined) ?? "";
    await waitFor(async () => (await answer()).startsWith("refused"), "the delivery to be refused", 5_000);
    expect(await answer()).toBe("refused: receiver.example resolves to 10.0.0.5, in the private range");
  });
});
