// The request log of the real binary, read from its stderr: one JSON line per request, and
// never a key, password, cookie or prompt in any line.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Database } from "../../src/db/database.ts";
import { createStore } from "../../src/db/store/index.ts";
import { spawnServe, type ServeProcess } from "../support/binary.ts";
import { hello, postChat } from "../support/chat.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { ask, postEstimator } from "../support/estimator.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { verifyEmail } from "../support/accounts.ts";
import { PASSWORD, request, signUpUser, type Browser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

type Entry = Record<string, unknown>;

describeEachDialect("request logs of gateway serve", (dialect) => {
  let testDb: TestDatabase;
  let server: ServeProcess;
  let db: Database;
  let user: Browser;
  let secret: string;
  let accountId: string;
  /** Every secret and prompt sent during the tests; none may appear in any log line. */
  const secrets: string[] = [PASSWORD, ...Object.values(providerEnv(fake)).filter((v) => v.startsWith("sk-"))];

  const entries = (): Entry[] => server.logs.map((line) => JSON.parse(line) as Entry);
  /** The request line of the response with this x-request-id, once it has been written. */
  async function lineOf(res: Response): Promise<Entry> {
    const id = res.headers.get("x-request-id");
    let found: Entry[] = [];
    await waitFor(() => {
      found = entries().filter((e) => e.message === "request" && e.requestId === id);
      return found.length > 0;
    }, `the log line of request ${id}`);
    expect(found).toHaveLength(1);
    return found[0]!;
  }
  const prompt = (label: string) => {
    const text = `${label} prompt ${crypto.randomUUID()}`;
    secrets.push(text);
    return text;
  };

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    server = await spawnServe({ DATABASE_URL: testDb.url, ...providerEnv(fake) });
    db = openTestDatabase(testDb.url);
    user = await signUpUser(server.url);
    await verifyEmail(createStore(db), user.email); // the free credits come with the verified e-mail
    secrets.push(user.cookie.slice(user.cookie.indexOf("=") + 1));
    accountId = (await createStore(db).findAccountByEmail(user.email))!.id;
    secret = (await readJson(await user.send("POST", "/keys/generate", { name: "logged" }))).key;
    secrets.push(secret);
  });
  afterAll(async () => {
    await server.stop();
    await db.close();
    await testDb.drop();
  });

  test("a chat completion's line has its ID, route, status, model, latency, account and key prefix", async () => {
    fake.behave({});
    const res = await postChat(server.url, secret, { ...hello("gpt-4.1-nano"), messages: [{ role: "user", content: prompt("plain") }] });
    expect(res.status).toBe(200);
    expect(await lineOf(res)).toEqual({
      time: expect.any(String),
      level: "info",
      message: "request",
      requestId: res.headers.get("x-request-id"),
      method: "POST",
      route: "/v1/chat/completions",
      status: 200,
      latencyMs: expect.any(Number),
      model: "gpt-4.1-nano",
      accountId,
      keyPrefix: secret.slice(0, 10),
      upstreamMs: expect.any(Number),
      billing: "charged",
    });
  });

  test("a stream's line is written when it ends, charged", async () => {
    fake.behave({ chunks: 3 });
    const res = await postChat(server.url, secret, { ...hello("deepseek-v3.2", { stream: true }), messages: [{ role: "user", content: prompt("stream") }] });
    expect(await res.text()).toEndWith("data: [DONE]\n\n");
    expect(await lineOf(res)).toMatchObject({ status: 200, model: "deepseek-v3.2", billing: "charged", keyPrefix: secret.slice(0, 10) });
  });

  test("a request the provider fails is logged 502 with its reservation released, the provider's status and words", async () => {
    // A provider that echoes the operator's key: the line keeps its words, never the key.
    const providerKey = Object.values(providerEnv(fake)).find((v) => v.startsWith("sk-"))!;
    fake.behave({ status: 500, errorMessage: `upstream says no to ${providerKey}` });
    const res = await postChat(server.url, secret, { ...hello("kimi-k2.5"), messages: [{ role: "user", content: prompt("failing") }] });
    expect(res.status).toBe(502);
    const line = await lineOf(res);
    expect(line).toMatchObject({
      status: 502, model: "kimi-k2.5", billing: "released", accountId,
      errorType: "provider_error", error: "Upstream provider request failed with status 500", upstreamStatus: 500,
    });
    expect(line.upstreamError).toStartWith("upstream says no to ");
    expect(line).not.toHaveProperty("requestedModel");
  });

  test("a request the provider rejects (400) keeps its status and message; a broken stream what broke", async () => {
    fake.behave({ status: 400, errorMessage: "messages[0].content is too short" });
    const rejected = await postChat(server.url, secret, hello("gpt-4.1-nano"));
    expect(rejected.status).toBe(400);
    expect(await lineOf(rejected)).toMatchObject({
      status: 400, errorType: "invalid_request_error", error: "messages[0].content is too short",
      upstreamStatus: 400, upstreamError: "messages[0].content is too short",
    });
    fake.behave({ chunks: 4, breakAfter: 2 });
    const broken = await postChat(server.url, secret, hello("deepseek-v3.2", { stream: true }));
    await broken.text();
    const line = await lineOf(broken);
    expect(line).toMatchObject({ status: 200, billing: "released", upstreamError: expect.any(String) });
    expect(line).not.toHaveProperty("upstreamStatus");
  });

  test("a request refused before it reaches a provider names the model it asked for and what it was told", async () => {
    fake.behave({});
    const invalid = await postChat(server.url, secret, { model: "gpt-4.1-nano", messages: "not a list" } as never);
    expect(invalid.status).toBe(400);
    const line = await lineOf(invalid);
    expect(line).toMatchObject({ status: 400, requestedModel: "gpt-4.1-nano", errorType: "invalid_request_error", error: expect.stringContaining("messages") });
    expect(line).not.toHaveProperty("upstreamStatus");
    const unknown = await postChat(server.url, secret, hello("no-such-model"));
    expect(unknown.status).toBe(400);
    expect(await lineOf(unknown)).toMatchObject({ status: 400, accountId, requestedModel: "no-such-model", error: expect.stringContaining("no-such-model") });
    // A name longer than any model's is kept to its first 128 characters.
    const long = await postChat(server.url, secret, hello(`no-such-model-${"x".repeat(300)}`));
    expect(long.status).toBe(400);
    expect((await lineOf(long)).requestedModel).toBe(`no-such-model-${"x".repeat(114)}`);
  });

  test("what a request logs beside its request line carries its request ID", async () => {
    fake.behave({ chunks: 4, breakAfter: 2 });
    const broken = await postChat(server.url, secret, { ...hello("deepseek-v3.2", { stream: true }), messages: [{ role: "user", content: prompt("broken") }] });
    await broken.text();
    fake.behave({ usage: null });
    const unreported = await postChat(server.url, secret, { ...hello("deepseek-v3.2"), messages: [{ role: "user", content: prompt("no usage") }] });
    expect(unreported.status).toBe(200);
    for (const [res, message] of [[broken, "provider stream failed"], [unreported, "provider reported no usage; charging the reservation"]] as const) {
      const id = res.headers.get("x-request-id");
      await waitFor(() => entries().some((e) => e.message === message && e.requestId === id), `"${message}" logged with request ID ${id}`);
    }
  });

  test("a wrong key is logged 401 without the key or its prefix", async () => {
    const wrong = `gw-${"Z".repeat(44)}`;
    secrets.push(wrong);
    const res = await postChat(server.url, wrong, hello());
    expect(res.status).toBe(401);
    const line = await lineOf(res);
    expect(line).toMatchObject({ status: 401, route: "/v1/chat/completions" });
    expect(line).not.toHaveProperty("keyPrefix");
  });

  test("a signed-in request's line names its account; a 404's route is (unmatched)", async () => {
    const account = await user.send("GET", "/account");
    expect(await lineOf(account)).toMatchObject({ method: "GET", route: "/account", status: 200, accountId });
    const missing = await fetch(`${server.url}/no/such/page`);
    expect(await lineOf(missing)).toMatchObject({ route: "(unmatched)", status: 404 });
  });

  test("sign-in attempts and estimator questions leave no password or prompt in the log", async () => {
    const wrongPassword = `wrong password ${crypto.randomUUID()}`;
    secrets.push(wrongPassword);
    const login = await request(server.url, "POST", "/auth/login", { email: user.email, password: wrongPassword });
    expect(await lineOf(login)).toMatchObject({ route: "/auth/login", status: 401 });
    const estimate = await postEstimator(server.url, ask(prompt("estimator")));
    expect(await lineOf(estimate)).toMatchObject({ route: "/estimator", status: 200 });
  });

  test("every line is JSON, and none holds a key, password, cookie or prompt used above", () => {
    const lines = server.logs;
    expect(lines.length).toBeGreaterThan(8);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    for (const text of secrets) {
      expect({ text, in: lines.filter((line) => line.includes(text)) }).toEqual({ text, in: [] });
    }
  });
});
