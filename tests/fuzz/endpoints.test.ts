// Random and hostile bodies, headers, methods and paths against every endpoint of a running
// `gateway serve`, with fast-check: never a 500, nothing reaches the provider unless it is a
// valid request for an enabled model, and no stack trace or secret in any answer. A failure
// prints its seed and the shrunk case; replay it with fc.assert's { seed, path }.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { FORWARDED_FIELDS, parseChatRequest } from "../../src/core/chat/request.ts";
import { MESSAGES } from "../../src/core/errors.ts";
import { AGENT_BODY_LIMIT_BYTES, BODY_LIMIT_BYTES } from "../../src/server/body.ts";
import { fundedKey, verifyEmail } from "../support/accounts.ts";
import { spawnServe, type ServeProcess } from "../support/binary.ts";
import { openBooks, type Books } from "../support/books.ts";
import { postChat } from "../support/chat.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { postResponses } from "../support/responses.ts";
import { signInOperator } from "../support/operator.ts";
import { PASSWORD, signUpUser, type Browser } from "../support/session.ts";
import { postMessages } from "../support/messages.ts";
import { messagesRequest, messagesVerdict } from "./messages-bodies.ts";
import { modelsField, namesOnlyCatalogModels, withModelsOnly } from "./models-bodies.ts";
import { isForwardableResponse, responsesRequest } from "./responses-bodies.ts";

// Some thousands of requests per dialect against one process: seconds, not minutes; room for a loaded machine.
setDefaultTimeout(60_000);

const fake = startFakeUpstream();
afterAll(() => fake.stop());
const STRIPE = { STRIPE_SECRET_KEY: "sk_test_fuzz_stripe_secret", STRIPE_WEBHOOK_SECRET: "whsec_fuzz_webhook_secret" };
const STACK_TRACE = [/\n\s+at .+:\d+:\d+/, /\.ts:\d+/, /node_modules/, /\$bunfs/];

/** Reads the whole answer (streams included) and checks that nothing in it or its headers leaks. */
async function answerText(res: Response, secrets: string[]): Promise<string> {
  const text = await res.text().catch((error: Error) => `<body failed: ${error.message}>`);
  const everything = `${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n${text}`;
  for (const pattern of STACK_TRACE) expect(everything).not.toMatch(pattern);
  for (const secret of secrets) expect(everything.includes(secret)).toBe(false);
  return text;
}

const printable = fc.string({ unit: "grapheme-ascii", maxLength: 80 });
const anyText = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: "binary", maxLength: 80 }), printable);
const hostileText = fc.constantFrom(
  "", " ", "null", "[]", "{}", "0", "-1", "1e999", "\u0000", "\uFFFF", "\uD800", "'; DROP TABLE accounts; --",
  "../../etc/passwd", "%00", "<script>alert(1)</script>", "${7*7}", "{{7*7}}", "__proto__", "constructor",
  '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', "[".repeat(5_000), '{"a":'.repeat(2_000),
);
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 4 }), hostileText.map((t) => ({ [t]: t })));
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });

const MODEL_IDS = FALLBACK_CATALOG.map((m) => m.id);
const ROLES = ["developer", "system", "user", "assistant", "tool"] as const;
const validMessage = fc.record(
  {
    role: fc.constantFrom(...ROLES),
    content: fc.oneof(fc.string({ maxLength: 200 }), fc.constant(null), fc.array(fc.constant({}), { maxLength: 3 })),
    name: fc.string({ maxLength: 64 }),
  },
  { requiredKeys: ["role"] },
);
const validChat = fc.record(
  {
    model: fc.constantFrom(...MODEL_IDS),
    messages: fc.array(validMessage, { minLength: 1, maxLength: 3 }),
    stream: fc.boolean(),
    max_tokens: fc.integer({ min: 1, max: 200_000 }),
    max_completion_tokens: fc.integer({ min: 1, max: 200_000 }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    frequency_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
    presence_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
    stop: fc.oneof(fc.string({ maxLength: 500 }), fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 })),
    tool_choice: fc.constantFrom("auto", "none"),
    response_format: fc.constantFrom({ type: "text" }, { type: "json_object" }),
    seed: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    // OpenAI's other parameters: validated, then forwarded or named as dropped per family.
    n: fc.integer({ min: 1, max: 10 }),
    logprobs: fc.boolean(),
    top_logprobs: fc.integer({ min: 0, max: 21 }),
    logit_bias: fc.oneof(fc.dictionary(fc.string(), fc.integer()), fc.dictionary(fc.nat().map(String), fc.integer({ min: -100, max: 100 }))),
    user: fc.string({ maxLength: 40 }),
    metadata: fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), { maxKeys: 3 }),
    store: fc.boolean(),
    parallel_tool_calls: fc.boolean(),
    reasoning_effort: fc.constantFrom("none", "minimal", "low", "medium", "high", "xhigh", "extreme"),
    verbosity: fc.constantFrom("low", "medium", "high"),
    service_tier: fc.constantFrom("auto", "default", "flex"),
    stream_options: fc.record({ include_usage: fc.boolean() }),
    tools: fc.constantFrom(
      [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
      [{ type: "custom", custom: { name: "run_code" } }],
    ),
    models: modelsField(anyJson),
    made_up_field: anyJson,
  },
  { requiredKeys: ["model", "messages"] },
);
const CHAT_FIELDS = ["model", "messages", "stream", "max_tokens", "max_completion_tokens", "temperature", "top_p",
  "frequency_penalty", "presence_penalty", "stop", "tools", "tool_choice", "response_format", "seed", "n", "logprobs",
  "top_logprobs", "logit_bias", "user", "metadata", "store", "parallel_tool_calls", "reasoning_effort", "verbosity",
  "service_tier", "modalities", "audio", "prediction", "web_search_options", "stream_options", "models"];
/** Valid requests, valid ones with one field (or one message field) replaced by anything, and records of anything. */
const chatRequest = fc.oneof(
  validChat,
  fc.tuple(validChat, modelsField(anyJson)).map(([body, models]) => withModelsOnly(body, models)),
  fc.tuple(validChat, fc.constantFrom(...CHAT_FIELDS), anyJson).map(([body, field, value]) => ({ ...body, [field]: value })),
  fc.tuple(validChat, fc.constantFrom("role", "content", "name", "tool_call_id", "tool_calls"), anyJson).map(([body, field, value]) => ({
    ...body,
    messages: [{ ...body.messages[0], [field]: value }, ...body.messages.slice(1)],
  })),
  fc.dictionary(fc.oneof(fc.constantFrom(...CHAT_FIELDS), anyText, hostileText), anyJson, { maxKeys: 6 }),
);

/** The spec's verdict on a body as the gateway receives it: forwardable, or a 400. */
function isForwardable(wire: string): boolean {
  try {
    return namesOnlyCatalogModels(parseChatRequest(JSON.parse(wire)));
  } catch {
    return false;
  }
}

const FORWARDABLE_KEYS = new Set<string>([...FORWARDED_FIELDS, "model", "max_tokens", "max_completion_tokens", "stream", "stream_options"]);

describeEachDialect("fuzzing a running gateway", (dialect) => {
  let testDb: TestDatabase;
  let books: Books;
  let gateway: ServeProcess;
  let chatSecret: string;
  let user: Browser;
  let operator: Browser;
  let secrets: string[];
  let orgId: string;

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    // TRUST_PROXY lets the fuzzed X-Forwarded-For pick the client IP, so per-IP limits do not end the run early.
    gateway = await spawnServe({ DATABASE_URL: testDb.url, ...providerEnv(fake), ...STRIPE, TRUST_PROXY: "1" });
    books = openBooks(testDb.url);
    chatSecret = (await fundedKey(books.store, "100000")).secret;
    user = await signUpUser(gateway.url);
    await verifyEmail(books.store, user.email);
    orgId = ((await (await user.send("POST", "/orgs", { name: "fuzzed" })).json()) as { id: string }).id;
    operator = await signInOperator(gateway.url, books.store);
    secrets = [
      ...Object.values(providerEnv(fake)).filter((v) => v.startsWith("sk-")),
      ...Object.values(STRIPE),
      fake.baseUrl,
      chatSecret,
      PASSWORD,
      user.cookie.slice("gw_session=".length),
      operator.cookie.slice("gw_session=".length),
      new URL(testDb.url).pathname, // the database file or name
    ];
  });
  afterAll(async () => {
    await gateway.stop();
    await books.close();
    await testDb.drop();
  });

  test("chat: a request reaches the provider exactly when it is valid, with only documented fields; never a 5xx or a leak", async () => {
    await fc.assert(
      fc.asyncProperty(chatRequest, async (body) => {
        const wire = JSON.stringify(body);
        const forwardedBefore = fake.received.length;
        const res = await postChat(gateway.url, chatSecret, wire);
        await answerText(res, secrets);
        const forwarded = fake.received.slice(forwardedBefore);
        if (Buffer.byteLength(wire) > BODY_LIMIT_BYTES) {
          expect([res.status, forwarded]).toEqual([413, []]);
          return;
        }
        if (!isForwardable(wire)) {
          expect(res.status).toBe(400);
          expect(forwarded).toEqual([]);
          return;
        }
        expect(res.status).toBe(200);
        expect(forwarded).toHaveLength(1);
        const sent = forwarded[0]!.body;
        expect(Object.keys(sent).filter((key) => !FORWARDABLE_KEYS.has(key))).toEqual([]);
        expect(sent.messages).toEqual(JSON.parse(wire).messages);
        // Every documented field the client sent is forwarded or named as dropped: none vanishes.
        const dropped = res.headers.get("x-gateway-dropped-params")?.split(",") ?? [];
        const documented = Object.keys(JSON.parse(wire)).filter((key) => (FORWARDED_FIELDS as readonly string[]).includes(key));
        expect(documented.filter((key) => !(key in sent) && !dropped.includes(key))).toEqual([]);
      }),
      { numRuns: 1_000 },
    );
  });

  test("responses: a request reaches the provider, as chat, exactly when it is valid; never a 5xx or a leak", async () => {
    await fc.assert(
      fc.asyncProperty(responsesRequest(anyJson), async (body) => {
        const wire = JSON.stringify(body);
        const forwardedBefore = fake.received.length;
        const res = await postResponses(gateway.url, chatSecret, wire);
        await answerText(res, secrets);
        const forwarded = fake.received.slice(forwardedBefore);
        const verdict = Buffer.byteLength(wire) > AGENT_BODY_LIMIT_BYTES ? 413 : isForwardableResponse(wire) ? 200 : 400;
        expect([res.status, forwarded.length]).toEqual([verdict, verdict === 200 ? 1 : 0]);
        if (verdict === 200) expect(Object.keys(forwarded[0]!.body).filter((key) => !FORWARDABLE_KEYS.has(key))).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  test("messages: a request reaches the provider, as chat, exactly when it is valid; errors in Anthropic's envelope; never a 5xx or a leak", async () => {
    await fc.assert(
      fc.asyncProperty(messagesRequest(anyJson), async (body) => {
        const wire = JSON.stringify(body);
        const forwardedBefore = fake.received.length;
        const res = await postMessages(gateway.url, chatSecret, wire);
        const text = await answerText(res, secrets);
        const forwarded = fake.received.slice(forwardedBefore);
        const verdict = messagesVerdict(wire);
        expect([res.status, forwarded.length]).toEqual([verdict, verdict === 200 ? 1 : 0]);
        if (verdict !== 200) expect(JSON.parse(text)).toMatchObject({ type: "error", error: { type: verdict === 404 ? "not_found_error" : "invalid_request_error" } });
      }),
      { numRuns: 500 },
    );
  });

  const authorization = fc.oneof(
    fc.constant<string | undefined>(undefined),
    fc.constant("our key"),
    printable.map((t) => `Bearer ${t}`),
    printable.map((t) => `Bearer gw-${t}`),
    printable,
    fc.constantFrom("Bearer", "Bearer ", "bearer  gw-", "Basic dXNlcjpwYXNz", "Bearer gw-" + "A".repeat(5_000)),
  );
  const rawBody = fc.oneof(anyText, hostileText, fc.uint8Array({ maxLength: 200 }), chatRequest.map((b) => JSON.stringify(b).slice(0, -1)));

  test("chat: raw and broken bodies, odd content types and authorizations never give a 5xx, never reach the provider unvalidated", async () => {
    await fc.assert(
      fc.asyncProperty(rawBody, authorization, optional(printable), async (body, auth, contentType) => {
        const forwardedBefore = fake.received.length;
        const headers: Record<string, string> = {};
        if (contentType !== undefined) headers["content-type"] = contentType;
        if (auth !== undefined) headers.authorization = auth === "our key" ? `Bearer ${chatSecret}` : auth;
        const res = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers, body });
        await answerText(res, secrets);
        expect(res.status).toBeLessThan(500);
        if (res.status !== 200) expect(fake.received.length).toBe(forwardedBefore);
      }),
      { numRuns: 500 },
    );
  });

  // Addresses and ranges near the edges of what parses, and what only looks like one.
  const ipEntry = fc.oneof(
    fc.ipV4(), fc.ipV6(), fc.ipV4Extended(),
    fc.tuple(fc.oneof(fc.ipV4(), fc.ipV6()), fc.integer({ min: -1, max: 140 })).map(([ip, bits]) => `${ip}/${bits}`),
    fc.constantFrom("::ffff:10.0.0.1", "::ffff:10.0.0.0/104", "fe80::1%eth0", "0.0.0.0/0", "::/0", "10.0.0.0/8/8", "127.1", " 10.0.0.1"),
    printable,
  );
  const modelEntry = fc.oneof(fc.constantFrom("gpt-4.1-nano", "gpt-4.1", "deepseek-v3.2", "no-such-model", ""), printable);
  const keyBody = fc.record({
    name: optional(printable),
    allowedModels: optional(fc.oneof(fc.array(modelEntry, { maxLength: 4 }), fc.constant(null), anyJson)),
    allowedIps: optional(fc.oneof(fc.array(ipEntry, { maxLength: 4 }), fc.constant(null), anyJson)),
    management: optional(fc.oneof(fc.boolean(), anyJson)),
    creditLimitUsd: optional(fc.oneof(fc.double(), fc.constant(5))),
  }, { requiredKeys: [] });

  test("keys: allowlists and management in any shape are stored canonically or refused with 400, never a 5xx", async () => {
    const { key: mgmt } = await (await user.send("POST", "/keys/generate", { name: "fuzz", management: true })).json() as { key: string };
    secrets.push(mgmt);
    await fc.assert(
      fc.asyncProperty(keyBody, fc.boolean(), async (body, byScript) => {
        const res = byScript
          ? await fetch(`${gateway.url}/keys/generate`, {
            method: "POST", headers: { authorization: `Bearer ${mgmt}`, "content-type": "application/json" }, body: JSON.stringify(body),
          })
          : await user.send("POST", "/keys/generate", body);
        const text = await answerText(res, secrets);
        expect([200, 400, 403, 429]).toContain(res.status);
        if (res.status !== 200) return;
        const created = JSON.parse(text);
        expect(created.key).toMatch(created.management ? /^gw-mgmt-/ : /^gw-[0-9A-Za-z]{48}$/);
        if (byScript) expect(created.management).toBeUndefined();
        for (const list of [created.allowed_models, created.allowed_ips]) {
          if (list !== undefined) expect(new Set(list).size).toBe(list.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  const keyId = fc.oneof(fc.uuid(), printable.filter((t) => t.length > 0).map(encodeURIComponent), hostileText.filter((t) => t.length > 0 && t.length < 100 && t.isWellFormed()).map(encodeURIComponent));
  const ENDPOINTS: [string, string][] = [
    ["POST", "/v1/chat/completions"], ["POST", "/v1/responses"], ["POST", "/v1/messages"], ["POST", "/v1/messages/count_tokens"],
    ["GET", "/v1/responses/:id"], ["DELETE", "/v1/responses/:id"], ["GET", "/v1/responses/:id/input_items"], ["POST", "/estimator"], ["POST", "/auth/signup"], ["POST", "/auth/login"],
    ["POST", "/auth/logout"], ["GET", "/account"], ["GET", "/account/usage"], ["GET", "/account/spend"],
    ["GET", "/keys/generate"], ["POST", "/keys/generate"], ["PATCH", "/keys/:id"], ["POST", "/keys/:id/rotate"],
    ["DELETE", "/keys/:id/revoke"], ["DELETE", "/keys/:id"], ["PATCH", "/settings/alert-threshold"],
    ["PATCH", "/settings/spend-safety-limit"], ["GET", "/settings/webhook"], ["PUT", "/settings/webhook"], ["DELETE", "/settings/webhook"],
    ["POST", "/settings/webhook/test"], ["POST", "/settings/webhook/deliveries/:id/redeliver"],
    ["GET", "/usage/export"], ["POST", "/checkout"], ["POST", "/webhooks/stripe"],
    ["GET", "/settings/auto-topup"], ["PUT", "/settings/auto-topup"], ["DELETE", "/settings/auto-topup"], ["PUT", "/settings/auto-topup?org=:org"],
    ["GET", "/models"], ["GET", "/v1/models"], ["GET", "/v1/models/:id"], ["GET", "/health"], ["GET", "/dashboard"], ["GET", "/dashboard/keys"], ["GET", "/dashboard/signin"],
    // Accounts: verification, recovery, sessions, two-factor sign-in and the audit log.
    ["POST", "/auth/verify"], ["POST", "/auth/verify/resend"], ["POST", "/auth/password/forgot"], ["POST", "/auth/password/reset"],
    ["POST", "/auth/password/change"], ["GET", "/auth/sessions"], ["DELETE", "/auth/sessions/:id"],
    ["POST", "/auth/sessions/revoke-others"], ["POST", "/auth/totp/setup"], ["POST", "/auth/totp/enable"],
    ["POST", "/auth/totp/disable"], ["GET", "/account/security"], ["GET", "/account/audit"],
    ["GET", "/dashboard/verify"], ["GET", "/dashboard/forgot"], ["GET", "/dashboard/reset"], ["GET", "/dashboard/security"],
    // The dashboard's newer reads and the operator console (`:id` stands for an e-mail or a model there).
    ["GET", "/account/spend/models"], ["GET", "/account/purchases"], ["POST", "/account/purchases/:id/cancel"], ["GET", "/account/audit"], ["GET", "/admin/accounts"],
    ["GET", "/admin/accounts/:id"], ["POST", "/admin/accounts/:id/credits"], ["POST", "/admin/accounts/:id/ban"],
    ["POST", "/admin/accounts/:id/unban"], ["GET", "/admin/stats"], ["GET", "/admin/models"], ["PATCH", "/admin/models/:id"],
    ["GET", "/admin/audit"], ["POST", "/admin/purchases/:id/refund"], ["GET", "/dashboard/models"], ["GET", "/dashboard/usage"], ["GET", "/dashboard/purchases"],
    ["GET", "/dashboard/admin"], ["GET", "/dashboard/admin/accounts"], ["GET", "/dashboard/admin/catalog"],
    // Organizations (`:org` stands for the user's own organization or anything; `:id` for a member or an invitation).
    ["POST", "/orgs"], ["GET", "/orgs"], ["PATCH", "/orgs/:org"], ["DELETE", "/orgs/:org"], ["GET", "/orgs/:org/members"],
    ["PATCH", "/orgs/:org/members/:id"], ["DELETE", "/orgs/:org/members/:id"], ["GET", "/orgs/:org/invitations"],
    ["POST", "/orgs/:org/invitations"], ["DELETE", "/orgs/:org/invitations/:id"], ["POST", "/orgs/:org/invitations/:id/resend"],
    ["POST", "/orgs/:org/transfers"], ["POST", "/invitations/accept"], ["GET", "/keys/generate?org=:org"], ["GET", "/account/usage?org=:org"],
    // The Responses API's WebSocket mode is refused (426 with an Upgrade header, else 405).
    ["GET", "/v1/responses"],
  ];
  // The query parameters the endpoints read, with anything as their value; or anything at all.
  const QUERY_PARAMS = ["page", "q", "days", "email", "key", "model", "status", "from", "to", "after", "limit", "order", "org", "member"];
  const query = fc.oneof(
    printable.map((t) => `?${encodeURIComponent(t)}=${encodeURIComponent(t)}`),
    fc.tuple(fc.constantFrom(...QUERY_PARAMS), fc.oneof(printable, hostileText.filter((t) => t.isWellFormed()))).map(([name, value]) => `?${name}=${encodeURIComponent(value)}`),
  );
  const request = fc.record({
    endpoint: fc.constantFrom(...ENDPOINTS),
    ownOrg: fc.boolean(),
    otherMethod: optional(fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD")),
    id: keyId,
    query: optional(query),
    body: optional(fc.oneof(anyJson.map((v) => JSON.stringify(v)), rawBody)),
    signedIn: fc.constantFrom("no", "user", "operator"),
    cookie: optional(printable),
    origin: optional(fc.oneof(fc.constantFrom("null", "https://evil.example"), printable)),
    contentType: optional(fc.oneof(fc.constant("application/json"), printable)),
    forwardedFor: optional(printable),
    authorization,
  });

  test("every endpoint: random methods, bodies, cookies, origins and headers never give a 500 or leak", async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const [method, pattern] = r.endpoint;
        const path = pattern.replace(":org", r.ownOrg ? orgId : r.id).replace(":id", r.id);
        const headers: Record<string, string> = {};
        // Signing out with the suite's own session would end it for the cases that follow.
        if (r.signedIn !== "no" && path !== "/auth/logout") headers.cookie = (r.signedIn === "user" ? user : operator).cookie;
        else if (r.cookie !== undefined) headers.cookie = r.cookie;
        if (r.origin !== undefined) headers.origin = r.origin;
        if (r.contentType !== undefined) headers["content-type"] = r.contentType;
        if (r.forwardedFor !== undefined) headers["x-forwarded-for"] = r.forwardedFor;
        if (r.authorization !== undefined) headers.authorization = r.authorization === "our key" ? `Bearer ${chatSecret}` : r.authorization;
        const actualMethod = r.otherMethod ?? method;
        const sendsBody = r.body !== undefined && actualMethod !== "GET" && actualMethod !== "HEAD";
        const res = await fetch(`${gateway.url}${path}${r.query ?? ""}`, {
          method: actualMethod,
          headers,
          body: sendsBody ? r.body : undefined,
          redirect: "manual",
        });
        const text = await answerText(res, secrets);
        // The one 5xx the spec gives an account endpoint: a pack without a Stripe price (bought, or chosen for automatic top-up).
        if ((path === "/checkout" || path.startsWith("/settings/auto-topup")) && res.status === 503) expect(JSON.parse(text)).toEqual({ error: MESSAGES.packNotConfigured });
        else expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 1_500 },
    );
  });

  // A random id rarely holds a NUL, which Postgres refuses as a parameter with an error: every
  // endpoint that takes one is asked with such ids, by a customer and by the operator.
  test("every id in a path (or ?org=) holding a NUL or another control character is answered, never with a 500", async () => {
    const taking = ENDPOINTS.filter(([, pattern]) => pattern.includes(":id") || pattern.includes(":org"));
    expect(taking.length).toBeGreaterThan(20);
    for (const [method, pattern] of taking) {
      for (const id of ["%00", "cs_test_%00", "a%00b", "%01", "%0A", "%7F"]) {
        for (const caller of [user, operator]) {
          const path = pattern.replaceAll(":org", id).replaceAll(":id", id);
          const res = await fetch(`${gateway.url}${path}`, {
            method, headers: { cookie: caller.cookie, "content-type": "application/json" }, body: method === "GET" ? undefined : "{}", redirect: "manual",
          });
          const text = await answerText(res, secrets);
          expect({ endpoint: `${method} ${path}`, status: res.status < 500 ? "below 500" : `${res.status} ${text}` })
            .toEqual({ endpoint: `${method} ${path}`, status: "below 500" });
        }
      }
    }
  });

  // Look-alikes of a real address: an invisible character slipped in anywhere, or one Latin
  // letter of the local part swapped for its Cyrillic or Greek twin.
  const INVISIBLES = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u2066", "\u061c", "\u180e", "\u3164", "\ufe0f", "\u034f"];
  const TWINS: Record<string, string[]> = { a: ["\u0430", "\u03b1"], c: ["\u0441"], e: ["\u0435"], i: ["\u0456", "\u03b9"], o: ["\u043e", "\u03bf"], p: ["\u0440", "\u03c1"] };
  const LOCAL = "apicoeca"; // every letter has a twin
  const lookAlike = fc.oneof(
    // Inside the address: sign-up trims the ends, and JavaScript's trim takes a BOM for a space.
    fc.tuple(fc.constantFrom(...INVISIBLES), fc.integer({ min: 1, max: LOCAL.length + 11 })).map(([char, at]) => {
      const email = `${LOCAL}@example.com`;
      return `${email.slice(0, at)}${char}${email.slice(at)}`;
    }),
    fc.tuple(fc.nat({ max: LOCAL.length - 1 }), fc.nat()).map(([at, pick]) => {
      const twins = TWINS[LOCAL[at]!]!;
      return `${LOCAL.slice(0, at)}${twins[pick % twins.length]}${LOCAL.slice(at + 1)}@example.com`;
    }),
  );

  test("sign-up: an e-mail with an invisible character or mixed scripts is a 400 in sign-up's error shape, and no account", async () => {
    await fc.assert(
      fc.asyncProperty(lookAlike, printable, async (email, forwardedFor) => {
        const res = await fetch(`${gateway.url}/auth/signup`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
          body: JSON.stringify({ email, password: PASSWORD }),
        });
        const body = JSON.parse(await answerText(res, secrets));
        expect({ status: res.status, body, cookie: res.headers.get("set-cookie") }).toEqual({
          // A BOM is whitespace to JavaScript, so that one is refused as no address at all.
          status: 400, body: { error: expect.stringMatching(/^email must (not contain invisible or formatting characters|not mix scripts|be a valid e-mail address)/) }, cookie: null,
        });
        expect(await books.store.findAccountByEmail(email)).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  const hostileSegment = fc.oneof(fc.webSegment(), printable.map(encodeURIComponent), fc.constantFrom("..", "%2e%2e", "%00", "%ff", "%", "~", "v1", "keys", "A".repeat(2_000)));
  test("unknown and hostile paths answer 404 or 405 in the error style, never a 500 or a leak", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileSegment, { minLength: 1, maxLength: 5 }), fc.constantFrom("GET", "POST", "DELETE"), async (segments, method) => {
        const res = await fetch(`${gateway.url}/${segments.join("/")}`, { method, redirect: "manual" });
        await answerText(res, secrets);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 500 },
    );
  });

  // Money strings (the console's grants and prices) are decimal digits only, at most 9 decimals:
  // what Number() or decimal.js would also read ("0x10" as 16, "1e3" as 1000) is a 400.
  const NOT_DECIMAL = ["0x10", "1e3", " 1", "1.", ".5", "+1", "1_000", "Infinity", "NaN", "1.0000000001", "-0x10", "1E3", "0b1", "1 ", "-Infinity", "+0.5", "-.5", "1e-3"];
  const digits = (max: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: max }).map((d) => d.join(""));
  const decimal = fc.tuple(fc.constantFrom("", "-"), fc.integer({ min: 0, max: 20_000 }), fc.option(digits(11), { nil: undefined }))
    .map(([sign, whole, fraction]) => `${sign}${whole}${fraction === undefined ? "" : `.${fraction}`}`);
  const moneyText = fc.oneof(fc.constantFrom(...NOT_DECIMAL), decimal, printable, fc.tuple(decimal, printable).map(([d, junk]) => `${d}${junk}`));
  /** The amount a money string stands for, in nano-USD, by the README's rule; null when it is no amount. */
  const nanosOf = (text: string): bigint | null => {
    const match = /^(-?)(\d+)(?:\.(\d{1,9}))?$/.exec(text);
    if (!match) return null;
    const magnitude = BigInt(match[2]!) * 1_000_000_000n + BigInt((match[3] ?? "").padEnd(9, "0"));
    return match[1] ? -magnitude : magnitude;
  };

  test("money strings: a grant is made exactly when its usd is a decimal amount, and for that amount", async () => {
    const accountId = (await books.store.findAccountByEmail(user.email))!.id;
    await fc.assert(
      fc.asyncProperty(moneyText, async (usd) => {
        const before = await books.store.ledgerSum(accountId);
        const res = await operator.send("POST", `/admin/accounts/${encodeURIComponent(user.email)}/credits`, { usd, note: "fuzz" });
        await answerText(res, secrets);
        const amount = nanosOf(usd);
        const granted = amount !== null && amount !== 0n;
        expect([res.status, (await books.store.ledgerSum(accountId)) - before]).toEqual([granted ? 200 : 400, granted ? amount : 0n]);
      }),
      { numRuns: 300 },
    );
  });

  test("money strings: a catalog price is changed exactly when it is a decimal amount within the catalog's rules", async () => {
    const model = "gpt-4o";
    const original = (await books.store.listModels()).find((m) => m.id === model)!.inputPerMTok;
    await fc.assert(
      fc.asyncProperty(moneyText, async (price) => {
        const res = await operator.send("PATCH", `/admin/models/${model}`, { inputPerMillionUsd: price });
        await answerText(res, secrets);
        const amount = nanosOf(price);
        const valid = amount !== null && amount >= 0n && amount % 100_000n === 0n && amount <= 10_000_000_000_000n && !price.startsWith("-");
        const stored = (await books.store.listModels()).find((m) => m.id === model)!.inputPerMTok;
        expect(res.status).toBe(valid ? 200 : 400);
        if (valid) expect(stored).toBe(amount as never);
      }),
      { numRuns: 300 },
    );
    await operator.send("PATCH", `/admin/models/${model}`, { inputPerMillionUsd: (Number(original) / 1e9).toFixed(4) });
  });

  test("the gateway logged no unhandled error while it was fuzzed", () => {
    const errors = gateway.logs.filter((line) => line.includes('"level":"error"'));
    expect(errors).toEqual([]);
  });
});
