import { afterAll, expect, test } from "bun:test";
import { nanos, parseUsd, type Nanos } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { chatErrorShape, hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());
const usd = (value: string) => parseUsd(value) as Nanos;

/** Opens a stream and reads its first chunk, so the request is surely holding its reservation. */
async function openStream(url: string, secret: string) {
  const res = await postChat(url, secret, hello("gpt-4.1-nano", { stream: true }));
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  await reader.read();
  return reader;
}

describeEachDialect("chat: credit and rate limits", (dialect) => {
  const gateway = useGateway(dialect, providerEnv(fake));

  test("a balance below the estimated ceiling → 402 insufficient_credits stating balance, estimate and top-up link", async () => {
    const { secret, account } = await fundedKey(gateway().store, "0.001");
    const before = fake.received.length;
    const res = await postChat(gateway().url, secret, hello("gpt-5.5", { max_tokens: 1000 }));
    expect(res.status).toBe(402);
    const body = await readJson(res);
    expect(body).toEqual(chatErrorShape(402, "insufficient_credits"));
    expect(body.error.message).toContain("available balance $0.001000");
    expect(body.error.message).toMatch(/estimated cost \$0\.03\d{4}/); // 1000 × $30/M plus the input bound
    expect(body.error.message).toContain(`${gateway().config.dashboardUrl}/topup`);
    expect(fake.received.length).toBe(before);
    expect((await gateway().store.getAccount(account.id))!.reserved).toBe(nanos(0));
  });

  test("the output ceiling is the model's limit when max_tokens is absent, so a small balance fails on a large model", async () => {
    const { secret } = await fundedKey(gateway().store, "1");
    // gpt-5.5 allows 128,000 output tokens at $30/M: a $3.84 ceiling.
    expect((await postChat(gateway().url, secret, { model: "gpt-5.5", messages: [{ role: "user", content: "x" }] })).status).toBe(402);
    fake.behave({});
    expect((await postChat(gateway().url, secret, hello("gpt-5.5", { max_tokens: 100 }))).status).toBe(200);
  });

  test("a key whose lifetime credit limit the reservation would pass → 402 naming the key limit", async () => {
    fake.behave({ usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
    const { secret } = await fundedKey(gateway().store, "10", { creditLimit: usd("0.002") });
    // gpt-4.1-nano: 1000 in × $0.10/M + 1000 out × $0.40/M = $0.0005 per call, ceiling ≈ $0.00002 + 16 out.
    for (let i = 0; i < 4; i++) expect((await postChat(gateway().url, secret, hello())).status).toBe(200);
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(402);
    const body = await readJson(res);
    expect(body).toEqual(chatErrorShape(402, "insufficient_credits"));
    expect(body.error.message).toContain("credit limit");
  });

  test("a fourth concurrent request on one account → 429 rate_limit_error; a slot frees when a stream ends", async () => {
    fake.behave({ stallAfter: 0 });
    const { secret, account } = await fundedKey(gateway().store, "10");
    const streams = [];
    for (let i = 0; i < 3; i++) streams.push(await openStream(gateway().url, secret));
    const refused = await postChat(gateway().url, secret, hello());
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await readJson(refused)).toEqual(chatErrorShape(429, "rate_limit_error"));

    await streams[0]!.cancel();
    await waitFor(async () => (await gateway().store.getAccount(account.id))!.inflight === 2, "the cancelled stream's release");
    fake.behave({});
    expect((await postChat(gateway().url, secret, hello())).status).toBe(200);
    for (const s of streams.slice(1)) await s.cancel();
    await waitFor(async () => (await gateway().store.getAccount(account.id))!.inflight === 0, "every release");
    expect((await gateway().store.getAccount(account.id))!.reserved).toBe(nanos(0));
  });

  // Hourly limits are hard caps: the hour's settled spend, the open reservations the limit
  // counts and this request's ceiling must stay within it (DESIGN.md, "hourly windows").
  test("the account's hourly spend safety limit → 429 with Retry-After when the hour's spend and this request's ceiling would pass it", async () => {
    fake.behave({ usage: { prompt_tokens: 1000, completion_tokens: 1000 } }); // $0.0005 a call
    const { secret, account } = await fundedKey(gateway().store, "10");
    await gateway().store.updateAccount(account.id, { spendLimit: usd("0.0008") });
    const large = hello("gpt-4.1-nano", { max_tokens: 1000 }); // a ceiling of $0.0004 and a little input
    expect((await postChat(gateway().url, secret, large)).status).toBe(200);
    const res = await postChat(gateway().url, secret, large);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
    const body = await readJson(res);
    expect(body).toEqual(chatErrorShape(429, "rate_limit_error"));
    expect(body.error.message).toContain("safety limit");
    expect(body.error.message).toContain("the last hour spent $0.000500");
    expect(body.error.message).toMatch(/this request reserves up to \$0\.0004\d{2}/);
    // A smaller ceiling still fits under what is left.
    expect((await postChat(gateway().url, secret, hello())).status).toBe(200);
  });

  test("a request whose ceiling alone passes an hourly spend limit, a limit of 0 included → 429 without Retry-After", async () => {
    fake.behave({});
    const { secret, account } = await fundedKey(gateway().store, "10");
    await gateway().store.updateAccount(account.id, { spendLimit: nanos(0) });
    const blocked = await postChat(gateway().url, secret, hello());
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBeNull();
    expect((await readJson(blocked)).error.message).toContain("safety limit");

    const small = await fundedKey(gateway().store, "10", { usdPerHour: usd("0.0001") });
    const tooLarge = await postChat(gateway().url, small.secret, hello("gpt-4.1-nano", { max_tokens: 1000 }));
    expect(tooLarge.status).toBe(429);
    expect(tooLarge.headers.get("retry-after")).toBeNull();
    expect((await readJson(tooLarge)).error.message).toContain("hourly spend limit");
  });

  test("a key's hourly USD limit → 429 once the hour's spend and this request's ceiling would pass it", async () => {
    fake.behave({ usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
    const { secret } = await fundedKey(gateway().store, "10", { usdPerHour: usd("0.001") });
    expect((await postChat(gateway().url, secret, hello())).status).toBe(200); // $0.0005
    expect((await postChat(gateway().url, secret, hello())).status).toBe(200); // $0.0010: full
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(429);
    expect((await readJson(res)).error.message).toContain("hourly spend limit");
  });

  test("a key's hourly request limit → 429 on the request past it; another key is unaffected", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "10", { requestsPerHour: 2 });
    expect((await postChat(gateway().url, secret, hello())).status).toBe(200);
    expect((await postChat(gateway().url, secret, hello())).status).toBe(200);
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).not.toBeNull();
    expect((await readJson(res)).error.message).toContain("hourly request limit");
    const other = await fundedKey(gateway().store, "10", { requestsPerHour: 2 });
    expect((await postChat(gateway().url, other.secret, hello())).status).toBe(200);
  });
});
