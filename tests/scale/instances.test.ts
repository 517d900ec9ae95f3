// Three `gateway serve` processes on one Postgres database, driven together as a load balancer
// would: every limit lives in the database, so none can be passed by spreading requests.
import { afterAll, afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, parseUsd, requestCost, type Nanos } from "../../src/core/money.ts";
import { estimatePromptTokens } from "../../src/core/chat/price.ts";
import { fundedKey, verifyEmail } from "../support/accounts.ts";
import { runGateway } from "../support/binary.ts";
import { expectBooksClosed } from "../support/books.ts";
import { chatErrorShape, hello, postChat, wireUsage } from "../support/chat.ts";
import { describeOnPostgres } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { useInstances } from "../support/instances.ts";
import { browserWith, signUpUser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

// Processes start and leases run out in about a second each; a loaded machine needs room beyond bun's 5 s default.
setDefaultTimeout(20_000);
const fake = startFakeUpstream();
afterAll(() => fake.stop());
afterEach(() => fake.behave({}));

const nano = FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!;
/** What the fake's default usage (11 prompt, 7 completion tokens) costs on gpt-4.1-nano. */
const DEFAULT_COST = requestCost(11, 7, nano);

const statusCounts = (responses: Response[]) =>
  responses.reduce<Record<number, number>>((counts, r) => ({ ...counts, [r.status]: (counts[r.status] ?? 0) + 1 }), {});

const env = (fakeEnv: Record<string, string>, extra: Record<string, string> = {}) => ({
  ...fakeEnv,
  TRUST_PROXY: "1",
  FREE_CREDITS_PER_IP_PER_DAY: "1000000",
  SHUTDOWN_GRACE_MS: "1000",
  ...extra,
});

describeOnPostgres("three instances on one database, with the spec's limits", () => {
  const cluster = useInstances("postgres", 3, env(providerEnv(fake)));

  test("an account never has more than 3 requests in flight, however they spread over the instances", async () => {
    const { instances, books } = cluster();
    const upstream = Promise.withResolvers<void>();
    fake.behave({ holdUntil: upstream.promise });
    const { secret, account } = await fundedKey(books.store, "5");
    const forwardedBefore = fake.received.length;

    // A stream answers 200 once admitted and forwarded; held by the fake, it keeps its slot.
    const answers = await instances.spread(12, (url) => postChat(url, secret, hello("gpt-4.1-nano", { stream: true })));
    expect(statusCounts(answers)).toEqual({ 200: 3, 429: 9 });
    for (const refused of answers.filter((r) => r.status === 429)) {
      expect(await readJson(refused)).toEqual(chatErrorShape(429, "rate_limit_error"));
    }
    expect(fake.received.length - forwardedBefore).toBe(3);
    expect((await books.store.getAccount(account.id))!.inflight).toBe(3);

    upstream.resolve();
    for (const admitted of answers.filter((r) => r.status === 200)) expect(await admitted.text()).toEndWith("data: [DONE]\n\n");
    const audit = await expectBooksClosed(books.store, account.id);
    expect(audit.balance).toBe(nanos(5_000_000_000n - 3n * DEFAULT_COST));
  });

  test("a key revoked through one instance is refused at once by the others, by HTTP or by the CLI", async () => {
    const { instances, books, databaseUrl } = cluster();
    const user = await signUpUser(instances.at(0).url);
    await verifyEmail(books.store, user.email); // the free credits pay for its chat requests
    const created = await readJson(await user.send("POST", "/keys/generate", { name: "shared" }));
    const [{ id }] = (await readJson(await user.send("GET", "/keys/generate"))).keys;
    const everywhere = async (secret: string) => Promise.all(instances.all.map((i) => postChat(i.url, secret, hello())));

    expect((await everywhere(created.key)).map((r) => r.status)).toEqual([200, 200, 200]);
    const revoked = await browserWith(instances.at(1).url, user.email, user.cookie).send("DELETE", `/keys/${id}`);
    expect(revoked.status).toBe(200);
    for (const refused of await everywhere(created.key)) {
      expect(refused.status).toBe(401);
      expect((await readJson(refused)).error.message).toBe("API key has been revoked");
    }

    const cliKey = await fundedKey(books.store, "1");
    expect((await everywhere(cliKey.secret)).map((r) => r.status)).toEqual([200, 200, 200]);
    const run = await runGateway(["keys", "revoke", cliKey.key.id], { DATABASE_URL: databaseUrl });
    expect(run.code).toBe(0);
    expect((await everywhere(cliKey.secret)).map((r) => r.status)).toEqual([401, 401, 401]);
  });

  test("key generation stops at 5 an hour for the account, whichever instances the requests reach", async () => {
    const { instances } = cluster();
    const user = await signUpUser(instances.at(0).url);
    const answers = await instances.spread(12, (url) => browserWith(url, user.email, user.cookie).send("POST", "/keys/generate", {}));
    expect(statusCounts(answers)).toEqual({ 200: 5, 429: 7 });
    for (const refused of answers.filter((r) => r.status === 429)) {
      expect(await readJson(refused)).toEqual({ error: "rate_limit_exceeded" });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect((await readJson(await user.send("GET", "/keys/generate"))).keys).toHaveLength(5);
  });

  test("the estimator answers 20 requests an hour per client IP across the instances, behind a trusted proxy", async () => {
    const { instances } = cluster();
    const ask = (url: string, ip: string) =>
      fetch(`${url}/estimator`, {
        method: "POST",
        // The proxy appends the address it saw; what the client wrote to its left is not trusted.
        headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${Math.floor(Math.random() * 250)}, ${ip}` },
        body: JSON.stringify({ messages: [{ role: "user", content: "a support bot for 200 users" }] }),
      });
    const answers = await instances.spread(30, (url) => ask(url, "203.0.113.77"));
    expect(statusCounts(answers)).toEqual({ 200: 20, 429: 10 });
    for (const refused of answers.filter((r) => r.status === 429)) {
      expect(await readJson(refused)).toEqual({ error: "Too many requests. Please try again later." });
    }
    const otherClient = await Promise.all(instances.all.map((i) => ask(i.url, "203.0.113.78")));
    expect(otherClient.map((r) => r.status)).toEqual([200, 200, 200]);
  });
});

describeOnPostgres("three instances on one database, the in-flight cap lifted so that only the limit under test binds", () => {
  const cluster = useInstances("postgres", 3, env(providerEnv(fake), { MAX_CONCURRENT_REQUESTS: "1000" }));

  test("concurrent requests for one account, streaming or not, never reserve past its balance", async () => {
    const { instances, books } = cluster();
    const upstream = Promise.withResolvers<void>();
    fake.behave({ holdUntil: upstream.promise });
    // Equal byte lengths give both kinds of request the same reservation.
    const streaming = hello("gpt-4.1-nano", { max_tokens: 1000, stream: true, messages: [{ role: "user", content: "hello!" }] });
    const plain = hello("gpt-4.1-nano", { max_tokens: 1000, stream: false });
    const bytes = Buffer.byteLength(JSON.stringify(plain));
    expect(Buffer.byteLength(JSON.stringify(streaming))).toBe(bytes);
    const ceiling = requestCost(estimatePromptTokens(bytes, 1), 1000, nano);
    const startNanos = 7n * ceiling + ceiling / 2n;
    const { secret, account } = await fundedKey(books.store, "0");
    await books.store.addCredit({ accountId: account.id, amount: nanos(startNanos), kind: "grant", now: Date.now() });
    const forwardedBefore = fake.received.length;

    const total = 30;
    const answered: (Response | undefined)[] = [];
    const pending = Array.from({ length: total }, (_, i) =>
      postChat(instances.at(i).url, secret, i % 2 ? streaming : plain).then((r) => (answered[i] = r)),
    );
    // Every request is either refused at once or forwarded and held by the fake.
    const refusedCount = () => answered.filter((r) => r !== undefined && r.status !== 200).length;
    await waitFor(() => refusedCount() + fake.received.length - forwardedBefore === total, "every request refused or forwarded", 15_000);
    expect(fake.received.length - forwardedBefore).toBe(7);

    upstream.resolve();
    const answers = await Promise.all(pending);
    expect(statusCounts(answers)).toEqual({ 200: 7, 402: 23 });
    for (const refused of answers.filter((r) => r.status === 402)) {
      expect(await readJson(refused)).toEqual(chatErrorShape(402, "insufficient_credits"));
    }
    for (const [i, admitted] of answers.entries()) {
      if (admitted.status !== 200) continue;
      if (i % 2) expect(await admitted.text()).toEndWith("data: [DONE]\n\n");
      else expect((await readJson(admitted)).usage).toEqual(wireUsage(11, 7, DEFAULT_COST));
    }
    const audit = await expectBooksClosed(books.store, account.id);
    expect(audit.balance).toBe(nanos(startNanos - 7n * DEFAULT_COST));
  });

  test("a key's hourly request limit admits exactly that many of a burst spread over the instances", async () => {
    const { instances, books } = cluster();
    const { secret, account } = await fundedKey(books.store, "5", { requestsPerHour: 5 });
    const answers = await instances.spread(15, (url) => postChat(url, secret, hello()));
    expect(statusCounts(answers)).toEqual({ 200: 5, 429: 10 });
    for (const refused of answers.filter((r) => r.status === 429)) {
      expect(await readJson(refused)).toEqual(chatErrorShape(429, "rate_limit_error"));
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    await expectBooksClosed(books.store, account.id);
  });

  describe("hourly spend limits, counted from settled spend", () => {
    // Large usage on a cheap model: $0.0041 a request, so a $0.01 limit is reached by the third.
    const usage = { prompt_tokens: 1_000, completion_tokens: 10_000 };
    const cost = requestCost(usage.prompt_tokens, usage.completion_tokens, nano);
    const limitUsd = "0.01";
    const admittedBeforeLimit = Number((parseUsd(limitUsd)! + cost - 1n) / cost);

    /** Requests one after another, round-robin over the instances, until one is refused; then one to each instance. */
    async function spendUntilRefused(secret: string): Promise<{ admitted: number; after: number[] }> {
      const { instances } = cluster();
      fake.behave({ usage });
      let admitted = 0;
      for (let i = 0; i < admittedBeforeLimit + 2; i++) {
        const res = await postChat(instances.at(i).url, secret, hello());
        if (res.status !== 200) {
          expect(await readJson(res)).toEqual(chatErrorShape(429, "rate_limit_error"));
          break;
        }
        await res.arrayBuffer();
        admitted++;
      }
      const after = await Promise.all(instances.all.map((inst) => postChat(inst.url, secret, hello())));
      return { admitted, after: after.map((r) => r.status) };
    }

    test("a key's hourly USD limit refuses on every instance once the spend settled through any of them reaches it", async () => {
      const { books } = cluster();
      const { secret, account } = await fundedKey(books.store, "5", { usdPerHour: parseUsd(limitUsd) as Nanos });
      expect(await spendUntilRefused(secret)).toEqual({ admitted: admittedBeforeLimit, after: [429, 429, 429] });
      await expectBooksClosed(books.store, account.id);
    });

    test("the account's hourly spend safety limit, set through one instance, holds on all of them", async () => {
      const { instances, books } = cluster();
      const user = await signUpUser(instances.at(0).url);
      await verifyEmail(books.store, user.email);
      const set = await browserWith(instances.at(2).url, user.email, user.cookie).send("PATCH", "/settings/spend-safety-limit", { limit: 0.01 });
      expect(set.status).toBe(200);
      const { key } = await readJson(await user.send("POST", "/keys/generate", {}));
      expect(await spendUntilRefused(key)).toEqual({ admitted: admittedBeforeLimit, after: [429, 429, 429] });
      const account = await books.store.findAccountByEmail(user.email);
      await expectBooksClosed(books.store, account!.id);
    });
  });
});
