// Deliveries asked for from the webhook settings, through HTTP against a receiver on loopback:
// a test event, the payload each delivery lists, a redelivery of the same event, and the limits.
// The outbox's timer is a minute: what arrives here was sent because the route woke it.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import { NO_ENDPOINT, NO_SUCH_EVENT, TEST_EVENTS_PER_HOUR } from "../../src/core/webhooks/deliveries.ts";
import { verifyEmail } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";
import { startReceiver, verified } from "../support/webhook-receiver.ts";

interface Listed { id: string; type: string; createdAt: string; attempts: number; nextAttemptAt: string | null; sentAt: string | null; answer: string | null; redelivery: boolean; payload: string }

describeEachDialect("webhook test events and redeliveries", (dialect) => {
  const receiver = startReceiver();
  afterAll(() => receiver.stop());
  const gateway = useGateway(dialect, { WEBHOOK_ALLOW_PRIVATE: "1", ALERT_INTERVAL_MS: "60000", WEBHOOK_TIMEOUT_MS: "500" });

  /** A verified user with the receiver as its endpoint, and the endpoint's signing secret. */
  async function withEndpoint(): Promise<{ user: Browser; secret: string }> {
    const user = await signUpUser(gateway().url);
    await verifyEmail(gateway().store, user.email);
    const res = await user.send("PUT", "/settings/webhook", { url: receiver.url });
    expect(res.status).toBe(200);
    return { user, secret: (await readJson(res)).secret };
  }
  const listed = async (user: Browser): Promise<Listed[]> => (await readJson(await user.send("GET", "/settings/webhook"))).deliveries;
  const arrived = (id: string) => receiver.received.filter((r) => r.event.id === id);
  const redeliver = (user: Browser, id: string) => user.send("POST", `/settings/webhook/deliveries/${encodeURIComponent(id)}/redeliver`);

  let user: Browser;
  let secret: string;
  beforeAll(async () => {
    ({ user, secret } = await withEndpoint());
  });
  beforeEach(() => receiver.answerWith(() => 200));

  test("a test event is queued, delivered signed, and listed with the exact body received", async () => {
    const res = await user.send("POST", "/settings/webhook/test");
    expect(res.status).toBe(200);
    const sent = await readJson(res);
    expect(sent).toEqual({ id: expect.any(String), type: "webhook.test" });
    await waitFor(() => arrived(sent.id).length === 1, "the test event", 5_000);
    const [got] = arrived(sent.id);
    expect(got!.event).toEqual({ id: sent.id, type: "webhook.test", createdAt: expect.stringMatching(/Z$/), data: {} });
    expect(verified(secret, got!)).toBe(true);
    await waitFor(async () => (await listed(user)).find((d) => d.id === sent.id)?.sentAt != null, "the delivery to be marked", 5_000);
    expect((await listed(user)).find((d) => d.id === sent.id)).toEqual({
      id: sent.id, type: "webhook.test", createdAt: expect.any(String), attempts: 1, sentAt: expect.any(String), nextAttemptAt: null,
      answer: "200", redelivery: false, payload: got!.body,
    });
  });

  test("a redelivery sends the same id and body again, and is listed beside the first delivery", async () => {
    receiver.answerWith(() => 500);
    const { id } = await readJson(await user.send("POST", "/settings/webhook/test"));
    await waitFor(async () => (await listed(user)).find((d) => d.id === id)?.answer === "500: receiver is down", "the refusal", 5_000);
    receiver.answerWith(() => 200);
    const res = await redeliver(user, id);
    expect(res.status).toBe(200);
    const first = arrived(id)[0]!;
    expect(await readJson(res)).toEqual({
      id, type: "webhook.test", createdAt: expect.any(String), attempts: 0, sentAt: null, nextAttemptAt: expect.any(String),
      answer: null, redelivery: true, payload: first.body,
    });
    await waitFor(() => arrived(id).length === 2, "the redelivery", 5_000);
    const again = arrived(id)[1]!;
    expect(again.body).toBe(first.body);
    expect(verified(secret, again)).toBe(true);
    await waitFor(async () => (await listed(user)).filter((d) => d.id === id).some((d) => d.redelivery && d.answer === "200"), "the redelivery's answer", 5_000);
    // Newest first: the redelivery, then the first delivery with its refusal, still due for its retry.
    const [redelivered, original] = (await listed(user)).filter((d) => d.id === id);
    expect(redelivered).toMatchObject({ redelivery: true, attempts: 1, answer: "200", payload: first.body });
    expect(original).toMatchObject({ redelivery: false, attempts: 1, sentAt: null, answer: "500: receiver is down", payload: first.body });
  });

  test("balance.low, whose body is written when sent, lists the body received and redelivers it", async () => {
    await user.send("PATCH", "/settings/alert-threshold", { threshold: 4 });
    const accountId = (await gateway().store.findAccountByEmail(user.email))!.id;
    await gateway().store.addCredit({ accountId, amount: parseUsd("-3", { signed: true }) as Nanos, kind: "adjustment", note: "test", now: Date.now() });
    // A credit move does not wake the outbox: the test event after it does, and the claim takes both.
    await user.send("POST", "/settings/webhook/test");
    await waitFor(() => receiver.of("balance.low").length === 1, "balance.low", 5_000);
    const [low] = receiver.of("balance.low");
    expect((await listed(user)).find((d) => d.id === low!.event.id)?.payload).toBe(low!.body);
    expect((await redeliver(user, low!.event.id)).status).toBe(200);
    await waitFor(() => arrived(low!.event.id).length === 2, "the redelivered balance.low", 5_000);
    expect(arrived(low!.event.id)[1]!.body).toBe(low!.body);
  });

  test("another account's event, or one that does not exist, is 404", async () => {
    const { id } = await readJson(await user.send("POST", "/settings/webhook/test"));
    const { user: other } = await withEndpoint();
    // A NUL, which Postgres would refuse as a parameter.
    for (const eventId of [id, "no-such-event", "x".repeat(500), "\u0000", `${id}\u0000`]) {
      const res = await redeliver(other, eventId);
      expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 404, body: { error: NO_SUCH_EVENT } });
    }
  });

  test("without an endpoint, a test event and a redelivery are 404", async () => {
    const { id } = await readJson(await user.send("POST", "/settings/webhook/test"));
    const { user: removed } = await withEndpoint();
    expect((await removed.send("DELETE", "/settings/webhook")).status).toBe(200);
    const none = await signUpUser(gateway().url);
    for (const res of [await none.send("POST", "/settings/webhook/test"), await removed.send("POST", "/settings/webhook/test"), await redeliver(none, id)]) {
      expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 404, body: { error: NO_ENDPOINT } });
    }
  });

  test(`at most ${TEST_EVENTS_PER_HOUR} test events an hour per account: then 429 with Retry-After`, async () => {
    const { user: busy } = await withEndpoint();
    for (let i = 0; i < TEST_EVENTS_PER_HOUR; i++) expect((await busy.send("POST", "/settings/webhook/test")).status).toBe(200);
    const res = await busy.send("POST", "/settings/webhook/test");
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(3500);
    expect(await readJson(res)).toEqual({ error: "Too many test events: at most 10 an hour per account. Try again in 60 minutes." });
    // Another account's hour is its own.
    expect((await user.send("POST", "/settings/webhook/test")).status).toBe(200);
  });

  test("a write from another site is refused, and other methods are 405", async () => {
    const foreign = await user.send("POST", "/settings/webhook/test", undefined, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    for (const path of ["/settings/webhook/test", "/settings/webhook/deliveries/x/redeliver"]) {
      const res = await user.send("GET", path);
      expect({ status: res.status, allow: res.headers.get("allow") }).toEqual({ status: 405, allow: "POST" });
    }
  });
});
