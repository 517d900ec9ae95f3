// Keys kept to some models and some networks, through HTTP: set at creation, edited, kept by
// rotation, listed, and enforced on every /v1 door before anything is reserved or forwarded.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import OpenAI from "openai";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { postMessages } from "../support/messages.ts";
import { verifyEmail } from "../support/accounts.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

const OFFICE = "198.51.100.0/24";
const ALLOWED = ["gpt-4.1-nano", "gpt-4.1"];

describeEachDialect("a key kept to two models and one office network", (dialect) => {
  const fake = startFakeUpstream();
  afterAll(() => fake.stop());
  // Behind a trusted proxy: the client's address is the right-most X-Forwarded-For entry.
  const gateway = useGateway(dialect, { ...providerEnv(fake), TRUST_PROXY: "1" });
  let user: Browser;
  let secret: string;
  let keyId: string;
  const from = (ip: string) => ({ "x-forwarded-for": `10.9.9.9, ${ip}` });
  const balance = async () => (await readJson(await user.send("GET", "/account"))).balanceUsd;
  const usageRows = async () => (await readJson(await user.send("GET", "/account/usage"))).matches;
  const keyRequests = async () => (await readJson(await user.send("GET", "/keys/generate"))).keys.find((k: { id: string }) => k.id === keyId).total_requests;

  beforeAll(async () => {
    user = await signUpUser(gateway().url);
    await verifyEmail(gateway().store, user.email);
    const created = await readJson(await user.send("POST", "/keys/generate", { name: "office", allowedModels: ALLOWED, allowedIps: [OFFICE] }));
    expect(created).toMatchObject({ allowed_models: ALLOWED, allowed_ips: [OFFICE] });
    expect(created).not.toHaveProperty("management");
    secret = created.key;
    keyId = (await readJson(await user.send("GET", "/keys/generate"))).keys[0].id;
  });
  beforeEach(() => fake.behave({}));

  test("the list view shows the allowlists", async () => {
    const [key] = (await readJson(await user.send("GET", "/keys/generate"))).keys;
    expect(key).toMatchObject({ name: "office", allowedModels: ALLOWED, allowedIps: [OFFICE] });
  });

  test("an allowed model from the office is served and charged", async () => {
    const before = fake.received.length;
    const res = await postChat(gateway().url, secret, hello("gpt-4.1-nano"), from("198.51.100.77"));
    expect(res.status).toBe(200);
    expect(fake.received.length).toBe(before + 1);
  });

  test("an IPv4-mapped IPv6 address of the office is the office", async () => {
    expect((await postChat(gateway().url, secret, hello("gpt-4.1"), from("::ffff:198.51.100.1"))).status).toBe(200);
  });

  test.each([["0xc6.51.100.77"], ["198.051.100.077"], ["198.51.100.077"], ["3325256781"]])(
    "a forwarded address only some parsers read as the office's (%p) is not believed: the proxy's own is judged",
    async (written) => {
      const res = await postChat(gateway().url, secret, hello("gpt-4.1-nano"), from(written));
      expect(res.status).toBe(403);
      expect(await readJson(res)).toEqual({ error: { message: "This API key may not be used from this IP address", type: "permission_error", code: "403" } });
    },
  );

  test.each([
    ["another model", "deepseek-v3.2", "198.51.100.77", "This API key may not use the model `deepseek-v3.2`"],
    ["another address", "gpt-4.1-nano", "198.51.101.1", "This API key may not be used from this IP address"],
    ["the address just below the range", "gpt-4.1-nano", "198.51.99.255", "This API key may not be used from this IP address"],
  ])("%s: 403 permission_error, nothing reserved or forwarded, the refusal in Usage and on the key", async (_, model, ip, message) => {
    const [sent, money, rows, requests] = [fake.received.length, await balance(), await usageRows(), await keyRequests()];
    const res = await postChat(gateway().url, secret, hello(model), from(ip));
    expect(res.status).toBe(403);
    expect(await readJson(res)).toEqual({ error: { message, type: "permission_error", code: "403" } });
    expect(message).not.toContain("198.51.100");
    expect([fake.received.length, await balance(), await usageRows(), await keyRequests()]).toEqual([sent, money, rows + 1, requests + 1]);
    const [row] = (await readJson(await user.send("GET", "/account/usage"))).usage;
    expect(row).toMatchObject({ model, requestedModel: model, status: "refused", error: message, costUsd: "0.000000000", keyName: "office" });
    const [refusedOnly] = (await readJson(await user.send("GET", "/account/usage?status=refused"))).usage;
    expect(refusedOnly.id).toBe(row.id);
    expect((await readJson(await user.send("GET", "/account/usage?status=error"))).usage[0].id).toBe(row.id);
    expect((await readJson(await user.send("GET", "/account/usage?status=success"))).usage.map((u: { id: string }) => u.id)).not.toContain(row.id);
    // The CSV keeps DESIGN's two statuses: a refusal is an error row that cost nothing.
    const csv = await (await user.send("GET", "/usage/export")).text();
    expect(csv.split("\r\n")[1]).toMatch(new RegExp(`^[^,]+,${model},${model},0,0,0\\.000000000,\\d+,error$`));
  });

  test("the openai and Anthropic SDKs raise their permission errors, with the gateway's message", async () => {
    const openai = new OpenAI({ baseURL: `${gateway().url}/v1`, apiKey: secret, maxRetries: 0, defaultHeaders: from("198.51.100.77") });
    const refused = await openai.chat.completions.create({ model: "deepseek-v3.2", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused.message).toContain("This API key may not use the model `deepseek-v3.2`");
    const claude = new Anthropic({ baseURL: gateway().url, apiKey: secret, maxRetries: 0, defaultHeaders: from("203.0.113.9") });
    const elsewhere = await claude.messages.create({ model: "gpt-4.1", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(elsewhere).toBeInstanceOf(Anthropic.PermissionDeniedError);
  });

  test("a streamed request is refused the same way, before any stream opens", async () => {
    const res = await postChat(gateway().url, secret, hello("deepseek-v3.2", { stream: true }), from("198.51.100.77"));
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toContain("application/json");
  });

  test("/v1/responses refuses another model and another address", async () => {
    const post = (model: string, ip: string) => fetch(`${gateway().url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}`, ...from(ip) },
      body: JSON.stringify({ model, input: "hello", max_output_tokens: 16 }),
    });
    const sent = fake.received.length;
    const otherModel = await post("deepseek-v3.2", "198.51.100.77");
    expect(otherModel.status).toBe(403);
    expect((await readJson(otherModel)).error).toMatchObject({ type: "permission_error", message: "This API key may not use the model `deepseek-v3.2`" });
    const otherPlace = await post("gpt-4.1", "203.0.113.5");
    expect(otherPlace.status).toBe(403);
    expect((await readJson(otherPlace)).error.type).toBe("permission_error");
    expect(fake.received.length).toBe(sent);
  });

  test("/v1/messages refuses in Anthropic's shape", async () => {
    const body = { model: "deepseek-v3.2", max_tokens: 16, messages: [{ role: "user", content: "hello" }] };
    const res = await postMessages(gateway().url, secret, body, from("198.51.100.77"));
    expect(res.status).toBe(403);
    expect(await readJson(res)).toMatchObject({
      type: "error", error: { type: "permission_error", message: "This API key may not use the model `deepseek-v3.2`" },
    });
    const elsewhere = await postMessages(gateway().url, secret, { ...body, model: "gpt-4.1" }, from("203.0.113.5"));
    expect(elsewhere.status).toBe(403);
    const counted = await postMessages(gateway().url, secret, { ...body, model: "gpt-4.1" }, from("203.0.113.5"), "/v1/messages/count_tokens");
    expect(counted.status).toBe(403);
  });

  test("/v1/messages/count_tokens refuses another model exactly as /v1/messages does, and counts an allowed one", async () => {
    const body = { model: "deepseek-v3.2", max_tokens: 16, messages: [{ role: "user", content: "hello" }] };
    const [sent, rows] = [fake.received.length, await usageRows()];
    // The request is refused and recorded; counting its tokens is neither charged nor logged.
    const answers = [
      await postMessages(gateway().url, secret, body, from("198.51.100.77")),
      await postMessages(gateway().url, secret, body, from("198.51.100.77"), "/v1/messages/count_tokens"),
    ];
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(await readJson(res)).toEqual({
        type: "error", error: { type: "permission_error", message: "This API key may not use the model `deepseek-v3.2`" }, request_id: expect.any(String),
      });
    }
    const allowed = await postMessages(gateway().url, secret, { ...body, model: "gpt-4.1" }, from("198.51.100.77"), "/v1/messages/count_tokens");
    expect(allowed.status).toBe(200);
    expect(await readJson(allowed)).toEqual({ input_tokens: expect.any(Number) });
    expect([fake.received.length, await usageRows()]).toEqual([sent, rows + 1]);
  });

  test("the stored responses of the account are not read from another address", async () => {
    const res = await fetch(`${gateway().url}/v1/responses/resp_0123456789abcdef0123456789abcdef`, {
      headers: { authorization: `Bearer ${secret}`, ...from("203.0.113.5") },
    });
    expect(res.status).toBe(403);
  });

  test("GET /v1/models with the key lists its models only; without a key, the whole catalog", async () => {
    const ids = async (headers: Record<string, string>) =>
      (await readJson(await fetch(`${gateway().url}/v1/models`, { headers }))).data.map((m: { id: string }) => m.id);
    expect((await ids({ authorization: `Bearer ${secret}` })).sort()).toEqual([...ALLOWED].sort());
    expect((await ids({})).length).toBeGreaterThan(ALLOWED.length);
    const other = await fetch(`${gateway().url}/v1/models/deepseek-v3.2`, { headers: { authorization: `Bearer ${secret}` } });
    expect(other.status).toBe(404);
  });

  test("PATCH changes and clears the allowlists, and rotation keeps them", async () => {
    const patched = await readJson(await user.send("PATCH", `/keys/${keyId}`, { allowedModels: ["deepseek-v3.2"], allowedIps: ["2001:db8::/32"] }));
    expect(patched).toMatchObject({ allowedModels: ["deepseek-v3.2"], allowedIps: ["2001:db8::/32"] });
    expect((await postChat(gateway().url, secret, hello("gpt-4.1-nano"), from("2001:db8::5"))).status).toBe(403);
    expect((await postChat(gateway().url, secret, hello("deepseek-v3.2"), from("198.51.100.77"))).status).toBe(403);

    const rotated = await readJson(await user.send("POST", `/keys/${keyId}/rotate`));
    const [replacement] = (await readJson(await user.send("GET", "/keys/generate"))).keys;
    expect(replacement).toMatchObject({ status: "active", allowedModels: ["deepseek-v3.2"], allowedIps: ["2001:db8::/32"] });
    expect((await postChat(gateway().url, rotated.key, hello("gpt-4.1-nano"), from("2001:db8::5"))).status).toBe(403);

    const cleared = await readJson(await user.send("PATCH", `/keys/${replacement.id}`, { allowedModels: null, allowedIps: [] }));
    expect(cleared).not.toHaveProperty("allowedModels");
    expect(cleared).not.toHaveProperty("allowedIps");
    expect((await postChat(gateway().url, rotated.key, hello("gpt-4.1-nano"), from("203.0.113.5"))).status).toBe(200);
  });

  test.each([
    [{ allowedModels: ["no-such-model"] }, "allowedModels names `no-such-model`, which is not a catalog model"],
    [{ allowedModels: "gpt-4.1" }, "allowedModels must be a list of strings"],
    [{ allowedIps: ["10.0.0.0/33"] }, "allowedIps must be a list of IP addresses or CIDR ranges; `10.0.0.0/33` is neither"],
    [{ allowedIps: ["127.1"] }, "allowedIps must be a list of IP addresses or CIDR ranges; `127.1` is neither"],
  ])("a bad allowlist is the spec's validation error: %p", async (body, message) => {
    const res = await user.send("POST", "/keys/generate", body);
    expect(res.status).toBe(400);
    expect(await readJson(res)).toEqual({ error: "validation error", message });
  });
});

describeEachDialect("a key kept to a network, without a trusted proxy", (dialect) => {
  const fake = startFakeUpstream();
  afterAll(() => fake.stop());
  const gateway = useGateway(dialect, providerEnv(fake));

  test("judges the socket's address: X-Forwarded-For written by the client is not believed", async () => {
    const user = await signUpUser(gateway().url);
    await verifyEmail(gateway().store, user.email);
    const office = await readJson(await user.send("POST", "/keys/generate", { allowedIps: ["198.51.100.0/24"] }));
    const forged = await postChat(gateway().url, office.key, hello(), { "x-forwarded-for": "198.51.100.7" });
    expect(forged.status).toBe(403);
    const loopback = await readJson(await user.send("POST", "/keys/generate", { allowedIps: ["127.0.0.0/8", "::1"] }));
    expect((await postChat(gateway().url, loopback.key, hello())).status).toBe(200);
  });
});
