// Fallbacks on the three doors, against the real server: the first candidate's provider fails
// (or answers) as each test scripts, the second's answers. What falls back is served and charged
// by the second, at its prices; what does not is the client's answer as it was, nothing charged.
import { afterAll, expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import type { Store } from "../../src/core/ports.ts";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream, type Behavior } from "../support/fake-upstream.ts";
import { heldBurst } from "../support/hourly-burst.ts";
import { scrape } from "../support/metrics.ts";
import { useGateway } from "../support/server.ts";

const failing = startFakeUpstream();
const answering = startFakeUpstream();
afterAll(async () => {
  await failing.stop();
  await answering.stop();
});

/** DeepSeek's provider fails as scripted; Moonshot's refuses connections; Meta's (the fallback) answers. */
const FLAKY = "deepseek-v3.2";
const REFUSING = "kimi-k2.5";
const SERVING = "llama-4-scout";
const servingModel = FALLBACK_CATALOG.find((m) => m.id === SERVING)!;
// The fake's default usage, at the serving model's prices.
const SERVED_COST = requestCost(11, 7, servingModel);

type Door = "chat" | "responses" | "messages";
const PATH: Record<Door, string> = { chat: "/v1/chat/completions", responses: "/v1/responses", messages: "/v1/messages" };

function bodyFor(door: Door, first: string, stream: boolean): Record<string, unknown> {
  const models = [first, SERVING];
  if (door === "responses") return { models, input: "hello", max_output_tokens: 64, stream, store: false };
  return { models, messages: [{ role: "user", content: "hello" }], max_tokens: 64, stream };
}

const post = (url: string, door: Door, secret: string, body: unknown) =>
  fetch(`${url}${PATH[door]}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${secret}`, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body),
  });

async function books(store: Store, accountId: string) {
  const account = (await store.getAccount(accountId))!;
  const [log] = await store.usageLogPage(accountId, null, 5);
  return { balance: account.balance, reserved: account.reserved, ledger: await store.ledgerSum(accountId), log: log && { model: log.model, requested: log.requestedModel, status: log.status, cost: log.cost } };
}

const FALLS_BACK: [string, string, Behavior][] = [
  ["connection refused", REFUSING, {}],
  ["a timeout", FLAKY, { status: 503, delayMs: 2_000 }],
  ["429", FLAKY, { status: 429 }],
  ["503", FLAKY, { status: 503 }],
  ["a context-length 400", FLAKY, { status: 400, errorMessage: "This model's maximum context length is 131072 tokens. However, you requested 200000 tokens" }],
];

const DOES_NOT: [string, Behavior, number][] = [
  ["another 400", { status: 400, errorMessage: "messages: role must alternate" }, 400],
  ["422", { status: 422, errorMessage: "unprocessable" }, 400],
];

describeEachDialect("fallbacks on the three doors", (dialect) => {
  const gateway = useGateway(dialect, {
    ...providerEnv(answering),
    DEEPSEEK_BASE_URL: failing.baseUrl,
    MOONSHOT_BASE_URL: "http://127.0.0.1:1/v1",
    PROVIDER_TIMEOUT_MS: "400",
  });

  for (const door of ["chat", "responses", "messages"] as const) {
    for (const stream of [false, true]) {
      const how = `${door}${stream ? ", streamed" : ""}`;

      test.each(FALLS_BACK)(`${how}: %s falls back before the first byte; served, named and charged by the next`, async (_title, first, behavior) => {
        failing.behave(behavior);
        answering.behave({});
        const { secret, account } = await fundedKey(gateway().store, "2");
        const res = await post(gateway().url, door, secret, bodyFor(door, first, stream));
        const text = await res.text();
        expect({ status: res.status, header: res.headers.get("x-gateway-model") }).toEqual({ status: 200, header: SERVING });
        // The answer (or its events) names the model that served, never the one that failed.
        expect(text).toContain(`"model":"${SERVING}"`);
        expect(text).not.toContain(`"model":"${first}"`);
        expect(await books(gateway().store, account.id)).toEqual({
          balance: nanos(2_000_000_000n - SERVED_COST),
          reserved: nanos(0),
          ledger: nanos(2_000_000_000n - SERVED_COST),
          log: { model: SERVING, requested: first, status: "success", cost: SERVED_COST },
        });
      });

      test.each(DOES_NOT)(`${how}: %s is the client's answer; no fallback, nothing charged`, async (_title, behavior, status) => {
        failing.behave(behavior);
        const before = answering.received.length;
        const { secret, account } = await fundedKey(gateway().store, "2");
        const res = await post(gateway().url, door, secret, bodyFor(door, FLAKY, stream));
        expect(res.status).toBe(status);
        expect(await res.text()).toContain(behavior.errorMessage!);
        expect(answering.received.length).toBe(before);
        const after = await books(gateway().store, account.id);
        expect({ balance: after.balance, reserved: after.reserved, status: after.log?.status }).toEqual({ balance: nanos(2_000_000_000n), reserved: nanos(0), status: "error" });
      });
    }

    test(`${door}, streamed: a failure after the first byte is not passed to another model`, async () => {
      failing.behave({ breakAfter: 1 });
      const before = answering.received.length;
      const { secret, account } = await fundedKey(gateway().store, "2");
      const res = await post(gateway().url, door, secret, bodyFor(door, FLAKY, true));
      expect({ status: res.status, header: res.headers.get("x-gateway-model") }).toEqual({ status: 200, header: FLAKY });
      const text = await res.text();
      expect(text).toContain("error");
      expect(answering.received.length).toBe(before);
      const after = await books(gateway().store, account.id);
      expect({ balance: after.balance, reserved: after.reserved, status: after.log?.status, model: after.log?.model }).toEqual({ balance: nanos(2_000_000_000n), reserved: nanos(0), status: "error", model: FLAKY });
    });
  }

  test("each fallback is counted by the pair of models and the reason", async () => {
    const labels = { from: FLAKY, to: SERVING, reason: "rate_limited" };
    const before = (await scrape(gateway().url)).value("gateway_fallbacks_total", labels) ?? 0;
    failing.behave({ status: 429 });
    answering.behave({});
    const { secret } = await fundedKey(gateway().store, "2");
    expect((await post(gateway().url, "chat", secret, bodyFor("chat", FLAKY, false))).status).toBe(200);
    expect((await scrape(gateway().url)).value("gateway_fallbacks_total", labels)).toBe(before + 1);
  });

  test("a parameter the next candidate's family rejects is left out for it, and named", async () => {
    failing.behave({ status: 503 });
    answering.behave({});
    const sentBefore = { failing: failing.received.length, answering: answering.received.length };
    const { secret } = await fundedKey(gateway().store, "2");
    const res = await post(gateway().url, "chat", secret, { ...bodyFor("chat", FLAKY, false), logprobs: true });
    expect({ status: res.status, dropped: res.headers.get("x-gateway-dropped-params") }).toEqual({ status: 200, dropped: "logprobs" });
    // DeepSeek's chat model takes log probabilities; Llama's API does not document them.
    expect(failing.received.slice(sentBefore.failing).map((r) => r.body.logprobs)).toEqual([true]);
    expect(answering.received.slice(sentBefore.answering).map((r) => "logprobs" in r.body)).toEqual([false]);
  });

  test("the concurrency rule holds for a request and its fallbacks as one: 3 in flight, the rest 429, none tried", async () => {
    failing.behave({ status: 503 });
    const tried = failing.received.length;
    const { secret, account } = await fundedKey(gateway().store, "2");
    const burst = await heldBurst(answering, 10, () => post(gateway().url, "chat", secret, bodyFor("chat", FLAKY, false)));
    expect({ forwarded: burst.forwarded, tried: failing.received.length - tried }).toEqual({ forwarded: 3, tried: 3 });
    expect(burst.statuses.filter((s) => s !== 200)).toEqual(Array(7).fill(429));
    const after = (await gateway().store.getAccount(account.id))!;
    expect([after.reserved, after.inflight]).toEqual([nanos(0), 0] as never);
  });

  test("a request without `models` names its model in x-gateway-model", async () => {
    answering.behave({});
    const { secret } = await fundedKey(gateway().store, "2");
    const res = await post(gateway().url, "chat", secret, { model: SERVING, messages: [{ role: "user", content: "hello" }] });
    expect({ status: res.status, header: res.headers.get("x-gateway-model") }).toEqual({ status: 200, header: SERVING });
  });
});
