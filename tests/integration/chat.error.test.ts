import { afterAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { fundedKey } from "../support/accounts.ts";
import { chatErrorShape, hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

const msg = (content: unknown, extra: Record<string, unknown> = {}) => ({ role: "user", content, ...extra });

// Each rule of the spec's request and message tables, with the field its message must name.
const INVALID: [string, unknown, string][] = [
  ["missing model", { messages: [msg("x")] }, "model"],
  ["empty model", { model: "", messages: [msg("x")] }, "model"],
  ["model over 128 characters", { model: "m".repeat(129), messages: [msg("x")] }, "model"],
  ["model not a string", { model: 5, messages: [msg("x")] }, "model"],
  ["missing messages", { model: "gpt-4o" }, "messages"],
  ["no messages", { model: "gpt-4o", messages: [] }, "messages"],
  ["101 messages", { model: "gpt-4o", messages: Array.from({ length: 101 }, () => msg("x")) }, "messages"],
  ["a message that is not an object", { model: "gpt-4o", messages: ["hi"] }, "messages[0]"],
  ["an unknown role", { model: "gpt-4o", messages: [{ role: "robot", content: "x" }] }, "messages[0].role"],
  ["content a number", { model: "gpt-4o", messages: [msg(42)] }, "messages[0].content"],
  ["content array over 50 parts", { model: "gpt-4o", messages: [msg(Array.from({ length: 51 }, () => ({ type: "text", text: "x" })))] }, "messages[0].content"],
  ["name over 64 characters", { model: "gpt-4o", messages: [msg("x", { name: "n".repeat(65) })] }, "messages[0].name"],
  ["tool_call_id over 256 characters", { model: "gpt-4o", messages: [{ role: "tool", content: "x", tool_call_id: "t".repeat(257) }] }, "messages[0].tool_call_id"],
  ["tool_calls not an array", { model: "gpt-4o", messages: [{ role: "assistant", content: null, tool_calls: {} }] }, "messages[0].tool_calls"],
  ["stream not a boolean", { ...hello(), stream: "yes" }, "stream"],
  ["max_tokens 0", { ...hello(), max_tokens: 0 }, "max_tokens"],
  ["max_tokens over 200000", { ...hello(), max_tokens: 200_001 }, "max_tokens"],
  ["max_tokens fractional", { ...hello(), max_tokens: 1.5 }, "max_tokens"],
  ["max_completion_tokens 0", { ...hello(), max_completion_tokens: 0 }, "max_completion_tokens"],
  ["temperature above 2", { ...hello(), temperature: 2.01 }, "temperature"],
  ["temperature below 0", { ...hello(), temperature: -0.1 }, "temperature"],
  ["top_p above 1", { ...hello(), top_p: 1.1 }, "top_p"],
  ["frequency_penalty below -2", { ...hello(), frequency_penalty: -2.5 }, "frequency_penalty"],
  ["presence_penalty above 2", { ...hello(), presence_penalty: 3 }, "presence_penalty"],
  ["five stop strings", { ...hello(), stop: ["a", "b", "c", "d", "e"] }, "stop"],
  ["a stop string over 500 characters", { ...hello(), stop: "s".repeat(501) }, "stop"],
  ["65 tools", { ...hello(), tools: Array.from({ length: 65 }, (_, i) => ({ type: "function", function: { name: `f${i}` } })) }, "tools"],
  ["a function tool without its function", { ...hello(), tools: [{ type: "function" }] }, "tools"],
  ["a tool without a type", { ...hello(), tools: [{ function: { name: "f" } }] }, "tools"],
  ["tool_choice a number", { ...hello(), tool_choice: 3 }, "tool_choice"],
  ["response_format of unknown type", { ...hello(), response_format: { type: "xml" } }, "response_format"],
  ["json_schema without its schema", { ...hello(), response_format: { type: "json_schema", json_schema: { name: "x" } } }, "response_format"],
  ["response_format over 32KB", { ...hello(), response_format: { type: "json_schema", json_schema: { name: "x", schema: { description: "d".repeat(33_000) } } } }, "response_format"],
  ["seed beyond 32 bits", { ...hello(), seed: 2_147_483_648 }, "seed"],
];

describeEachDialect("chat: invalid requests are refused before anything is reserved or forwarded", (dialect) => {
  const gateway = useGateway(dialect, providerEnv(fake));

  test.each(INVALID)("%s → 400 naming the field", async (_title, body, field) => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    const before = fake.received.length;
    const res = await postChat(gateway().url, secret, body);
    expect(res.status).toBe(400);
    const error = await readJson(res);
    expect(error).toEqual(chatErrorShape(400, "invalid_request_error"));
    expect(error.error.message).toContain(field);
    expect(fake.received.length).toBe(before);
    const after = (await gateway().store.getAccount(account.id))!;
    expect([after.reserved, after.inflight]).toEqual([0n, 0] as never);
  });

  test.each([
    ["bad JSON", "{not json"],
    ["a JSON array", "[1, 2]"],
    ["a JSON string", '"hello"'],
    ["an empty body", ""],
  ])("%s → 400 invalid_request_error", async (_title, raw) => {
    const { secret } = await fundedKey(gateway().store, "5");
    const before = fake.received.length;
    const res = await postChat(gateway().url, secret, raw);
    expect(res.status).toBe(400);
    expect(await readJson(res)).toEqual(chatErrorShape(400, "invalid_request_error"));
    expect(fake.received.length).toBe(before);
  });

  // A content string over 200,000 characters, or tools over 64KB, cannot fit in a 64KB body:
  // the body limit answers first.
  test("content over 200,000 characters → 413, the body limit", async () => {
    const { secret } = await fundedKey(gateway().store, "5");
    const res = await postChat(gateway().url, secret, hello("gpt-4o", { messages: [msg("a".repeat(200_001))] }));
    expect(res.status).toBe(413);
  });

  test("a body over 64KB invalid_request_error, and 65,536 bytes exactly is accepted", async () => {
    const { secret } = await fundedKey(gateway().store, "50");
    const over = JSON.stringify(hello("gpt-4o", { messages: [msg("x".repeat(70_000))] }));
    const res = await postChat(gateway().url, secret, over);
    expect(res.status).toBe(413);
    expect(await readJson(res)).toEqual(chatErrorShape(413, "invalid_request_error"));

    const base = JSON.stringify(hello("gpt-4o", { messages: [msg("")] }));
    const exact = JSON.stringify(hello("gpt-4o", { messages: [msg("y".repeat(65_536 - base.length))] }));
    expect(Buffer.byteLength(exact)).toBe(65_536);
    fake.behave({});
    expect((await postChat(gateway().url, secret, exact)).status).toBe(200);
  });

  test("an unknown model and a disabled model → 400 invalid_request_error, nothing forwarded", async () => {
    const { secret } = await fundedKey(gateway().store, "5");
    const before = fake.received.length;
    const unknown = await postChat(gateway().url, secret, hello("gpt-17"));
    expect(unknown.status).toBe(400);
    expect((await readJson(unknown)).error.message).toContain("gpt-17");

    await gateway().store.updateModel("grok-4-3", { enabled: false });
    try {
      // The chat path reads the catalog through a cache refreshed every 10 s; a fresh server sees it at once.
      const { startGateway } = await import("../support/server.ts");
      const fresh = await startGateway(dialect, providerEnv(fake));
      try {
        const k = await fundedKey(fresh.store, "5");
        await fresh.store.updateModel("grok-4-3", { enabled: false });
        const disabled = await postChat(fresh.url, k.secret, hello("grok-4-3"));
        expect(disabled.status).toBe(400);
        expect(await readJson(disabled)).toEqual(chatErrorShape(400, "invalid_request_error"));
      } finally {
        await fresh.stop();
      }
    } finally {
      await gateway().store.updateModel("grok-4-3", { enabled: true });
    }
    expect(fake.received.length).toBe(before);
  });

  test.each(["GET", "PUT", "DELETE", "PATCH"])("%s on the chat path → 405 invalid_request_error", async (method) => {
    const res = await fetch(`${gateway().url}/v1/chat/completions`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await readJson(res)).toEqual(chatErrorShape(405, "invalid_request_error"));
  });
});

describeEachDialect("chat: authentication", (dialect) => {
  const gateway = useGateway(dialect, providerEnv(fake));

  test.each([
    ["no Authorization header", null, {}],
    ["a Basic credential", null, { authorization: "Basic dXNlcjpwYXNz" }],
    ["a malformed key", "not-a-key", {}],
    ["an unknown well-formed key", `gw-${"A".repeat(48)}`, {}],
  ])("%s → 401 authentication_error", async (_title, secret, headers) => {
    const res = await postChat(gateway().url, secret, hello(), headers);
    expect(res.status).toBe(401);
    expect(await readJson(res)).toEqual(chatErrorShape(401, "authentication_error"));
  });

  test("a revoked key → 401 on the very next request", async () => {
    const { secret, key } = await fundedKey(gateway().store, "5");
    fake.behave({});
    expect((await postChat(gateway().url, secret, hello())).status).toBe(200);
    await gateway().store.revokeKey(key.accountId, key.id, Date.now());
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(401);
    const body = await readJson(res);
    expect(body).toEqual(chatErrorShape(401, "authentication_error"));
    expect(body.error.message).toContain("revoked");
  });

  test("an expired key → 401 saying it expired", async () => {
    const { secret } = await fundedKey(gateway().store, "5", { expiresAt: Date.now() - 1000 });
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(401);
    expect((await readJson(res)).error.message).toContain("expired");
  });

  test.each([
    ["banned", { bannedAt: Date.now() }],
    ["deleted", { deletedAt: Date.now() }],
  ])("a %s account → 403 permission_error", async (_title, change) => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    await gateway().store.updateAccount(account.id, change);
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(403);
    expect(await readJson(res)).toEqual(chatErrorShape(403, "permission_error"));
  });

  // The key is found with the admission, after the body is read and priced: a request that fails
  // before then has its key looked up, so that a refused key is still what it is told first.
  test.each([
    ["broken JSON", "{model:"],
    ["an invalid request", { model: "", messages: [] }],
    ["an unknown model", { model: "gpt-9", messages: [msg("x")] }],
    ["a body over 64 KB", { ...hello(), metadata: { padding: "x".repeat(70_000) } }],
  ])("with %s, a refused key is told its 401 or 403, and a good key the body's error", async (_title, body) => {
    const revoked = await fundedKey(gateway().store, "5");
    await gateway().store.revokeKey(revoked.key.accountId, revoked.key.id, Date.now());
    const banned = await fundedKey(gateway().store, "5");
    await gateway().store.updateAccount(banned.account.id, { bannedAt: Date.now() });
    const good = await fundedKey(gateway().store, "5");
    const before = fake.received.length;
    const told = async (secret: string) => {
      const res = await postChat(gateway().url, secret, body);
      return { status: res.status, body: await readJson(res) };
    };
    const refused = (status: number, type: string, message: string) => ({ status, body: { error: { message, type, code: String(status) } } });
    expect(await told(`gw-${"C".repeat(48)}`)).toEqual(refused(401, "authentication_error", "Invalid API key"));
    expect(await told(revoked.secret)).toEqual(refused(401, "authentication_error", "API key has been revoked"));
    expect(await told(banned.secret)).toEqual(refused(403, "permission_error", "Account has been banned"));
    expect((await told(good.secret)).body.error.type).toBe("invalid_request_error");
    expect(fake.received.length).toBe(before);
  });

  test("the SDK raises its own error classes for 401 and 400", async () => {
    const bad = new OpenAI({ apiKey: `gw-${"B".repeat(48)}`, baseURL: `${gateway().url}/v1`, maxRetries: 0 });
    const unauthorized = await bad.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    const { secret } = await fundedKey(gateway().store, "5");
    const good = new OpenAI({ apiKey: secret, baseURL: `${gateway().url}/v1`, maxRetries: 0 });
    const badRequest = await good.chat.completions.create({ model: "nope", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(badRequest).toBeInstanceOf(OpenAI.BadRequestError);
  });
});
