import { describe, expect, test } from "bun:test";
import { upstreamFailure, ProviderTimeout } from "../../../src/core/chat/failures.ts";
import { admitChat, completeChat, openStream, type ChatCall, type ChatPorts } from "../../../src/core/chat/pipeline.ts";
import { priceRequest } from "../../../src/core/chat/price.ts";
import type { ChatProvider, ProviderCall, StreamRead } from "../../../src/core/chat/provider.ts";
import { parseChatRequest } from "../../../src/core/chat/request.ts";
import type { Model } from "../../../src/core/catalog.ts";
import { AppError } from "../../../src/core/errors.ts";
import { nanos } from "../../../src/core/money.ts";
import { CALLER, chatWorld, model, NOW, STARTED_AT } from "./fakes.ts";

/** Answers what the test scripts and records every call it gets. */
class ScriptedProvider implements ChatProvider {
  readonly calls: ProviderCall[] = [];
  answer: () => Promise<unknown> = async () => completion;
  events: () => Promise<AsyncIterable<StreamRead>> = async () => (async function* () {})();
  complete(call: ProviderCall): Promise<unknown> {
    this.calls.push(call);
    return this.answer();
  }
  stream(call: ProviderCall): Promise<AsyncIterable<StreamRead>> {
    this.calls.push(call);
    return this.events();
  }
}

const messages = [{ role: "user", content: "hello" }];
const choices = [{ index: 0, message: { role: "assistant", content: "Hi!" }, finish_reason: "stop" }];
const completion = {
  id: "chatcmpl-9",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-4.1-2025-04-14",
  choices,
  usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 },
};

// 193 bytes: the body the tests send, as the front door would count it.
const setup = (catalog: Model[] = [model("gpt-4.1"), model("gpt-5"), model("deepseek-v3.2")]) => {
  const world = chatWorld(new ScriptedProvider(), catalog);
  return { ...world, call: (body: Record<string, unknown>, bodyBytes = 193) => world.call(body, bodyBytes) };
};

describe("admitChat", () => {
  test.each([
    ["unknown", "gpt-9"],
    ["disabled", "gpt-4.1"],
  ])("an %s model is a 400 naming it, and nothing is reserved", async (_title, id) => {
    const s = setup([{ ...model("gpt-4.1"), enabled: false }]);
    const error = await admitChat(s.ports, s.call({ model: id, messages })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect({ kind: (error as AppError).kind, message: (error as AppError).message }).toEqual({
      kind: "invalid_request_error",
      message: `The model \`${id}\` does not exist or is not enabled`,
    });
    expect({ reserved: s.store.reserved, leases: s.leases.held.size, observed: s.observer.calls }).toEqual({ reserved: [], leases: 0, observed: [] });
  });

  test("reserves priceRequest's amount for the resolved model and opens the billing session", async () => {
    const s = setup();
    const call = s.call({ model: "gpt-4.1", messages, max_tokens: 100 });
    const admitted = await admitChat(s.ports, call);
    // 200 prompt tokens × 2 000 + 100 × 8 000 nano-USD.
    expect(priceRequest(call.request, model("gpt-4.1"), 193).amount).toBe(nanos(1_200_000n));
    const admission = {
      model: "gpt-4.1",
      requestedModel: "gpt-4.1",
      amount: nanos(1_200_000n),
      costOf: expect.any(Function),
      policy: call.policy,
      leaseMs: 60_000,
      now: STARTED_AT,
    };
    expect(s.store.asked).toEqual([{ keyHash: "hash-of-key-1", admission }]);
    // The store found the key without holding (as SQLite always does): `reserve` decides.
    expect(s.store.reserved).toEqual([{ ...admission, account: CALLER.account, key: CALLER.key }]);
    // What the refusal's max_tokens hint is computed from: the same price with another ceiling.
    expect(s.store.reserved[0]!.costOf!(100)).toBe(nanos(1_200_000n));
    expect(s.store.reserved[0]!.costOf!(50)).toBe(nanos(800_000n));
    expect(admitted.billing.reservation).toEqual({
      id: "res-1",
      accountId: "acct-1",
      keyId: "key-1",
      model: model("gpt-4.1"),
      requestedModel: "gpt-4.1",
      amount: nanos(1_200_000n),
      startedAt: STARTED_AT,
    });
    expect(s.observer.calls).toEqual([["resolved", "gpt-4.1"], ["identify", "key-1"], ["opened", "gpt-4.1"]]);
    expect([...s.leases.held]).toEqual(["res-1"]);
  });

  test("a reservation the store took with the key's lookup is the request's, and reserve is not asked", async () => {
    const s = setup();
    s.store.admitsAtLookup = "res-at-lookup";
    const admitted = await admitChat(s.ports, s.call({ model: "gpt-4.1", messages, max_tokens: 100 }));
    expect(s.store.reserved).toEqual([]);
    expect(admitted.billing.reservation).toMatchObject({ id: "res-at-lookup", accountId: "acct-1", keyId: "key-1" });
    expect([...s.leases.held]).toEqual(["res-at-lookup"]);
  });

  const revoked = { ...CALLER, key: { ...CALLER.key, revokedAt: STARTED_AT - 1 } };
  const expired = { ...CALLER, key: { ...CALLER.key, expiresAt: STARTED_AT - 1 } };
  const banned = { ...CALLER, account: { ...CALLER.account, bannedAt: STARTED_AT - 1 } };
  const deleted = { ...CALLER, account: { ...CALLER.account, deletedAt: STARTED_AT - 1 } };
  test.each([
    ["unknown", null, "authentication_error", "Invalid API key"],
    ["revoked", revoked, "authentication_error", "API key has been revoked"],
    ["expired", expired, "authentication_error", "API key has expired"],
    ["on a banned account", banned, "permission_error", "Account has been banned"],
    ["on a deleted account", deleted, "permission_error", "Account has been deleted"],
  ] as const)("a key %s is refused with the spec's error and nothing is reserved", async (_title, found, kind, message) => {
    const s = setup();
    s.store.keyFound = found;
    const error = (await admitChat(s.ports, s.call({ model: "gpt-4.1", messages })).catch((e: unknown) => e)) as AppError;
    expect({ kind: error.kind, message: error.message }).toEqual({ kind, message });
    expect({ reserved: s.store.reserved, released: s.store.released, leases: s.leases.held.size }).toEqual({ reserved: [], released: [], leases: 0 });
    // Not a use of the key by its allowlists' measure: nothing recorded in its usage.
    expect(s.store.refusals).toEqual([]);
    expect(s.observer.calls).toEqual([["resolved", "gpt-4.1"]]);
  });

  test("a hold the store took for a key that may not be used is given back, and the key refused", async () => {
    // The store reads the account's row as locked, authentication as of the statement's start:
    // an account unbanned between the two is admitted by the one and refused by the other.
    const s = setup();
    s.store.keyFound = banned;
    s.store.admitsAtLookup = "res-at-lookup";
    const error = (await admitChat(s.ports, s.call({ model: "gpt-4.1", messages })).catch((e: unknown) => e)) as AppError;
    expect(error.kind).toBe("permission_error");
    expect(s.store.released.map((r) => [r.reservationId, r.refused])).toEqual([["res-at-lookup", false]]);
    expect(s.leases.held.size).toBe(0);
  });

  test("a refused key is told its refusal even when its hold cannot be given back (the sweeper takes it)", async () => {
    const s = setup();
    s.store.keyFound = banned;
    s.store.admitsAtLookup = "res-at-lookup";
    s.store.releaseWith = () => Promise.reject(new Error("connection lost"));
    const error = (await admitChat(s.ports, s.call({ model: "gpt-4.1", messages })).catch((e: unknown) => e)) as AppError;
    expect(error.kind).toBe("permission_error");
    expect(s.ports.log.entries.map((e) => [e.level, e.message])).toEqual([["warn", "releasing a refused key's hold failed"]]);
  });

  test.each([
    ["gpt-4.1", 3, 400_000n + 3n * 800_000n],
    ["deepseek-v3.2", 1, 56_000n + 42_000n], // DeepSeek takes no n: one completion
  ] as const)("%s asked for n = 3 reserves for %i completions", async (id, _choices, amount) => {
    const s = setup();
    await admitChat(s.ports, s.call({ model: id, messages, max_tokens: 100, n: 3 }));
    expect(s.store.reserved.map((r) => r.amount)).toEqual([nanos(amount)]);
  });

  test("a refused reservation throws the store's error and opens nothing", async () => {
    const s = setup();
    const refusal = new AppError("insufficient_credits", "Insufficient credits: available $0.00, estimated $0.0012");
    s.store.reserveOutcome = { ok: false, error: refusal };
    await expect(admitChat(s.ports, s.call({ model: "gpt-4.1", messages }))).rejects.toBe(refusal);
    expect({ leases: s.leases.held.size, observed: s.observer.calls }).toEqual({ leases: 0, observed: [["resolved", "gpt-4.1"], ["identify", "key-1"]] });
  });
});

describe("completeChat", () => {
  test("sends the mapped body with the call's signal, settles the usage and answers under the public model ID", async () => {
    const s = setup();
    const admitted = await admitChat(s.ports, s.call({ model: "gpt-4.1", messages, max_tokens: 100, temperature: 0.2, api_key: "sk-x" }));
    const response = await completeChat(s.ports, admitted);
    expect(s.provider.calls).toEqual([
      { model: model("gpt-4.1"), body: { model: "gpt-4.1", messages, temperature: 0.2, max_tokens: 100 }, signal: s.signal, controller: s.controller },
    ]);
    expect(s.provider.calls[0]?.signal).toBe(s.signal);
    // 12 × 2 000 + 2 × 8 000 nano-USD.
    expect(response).toEqual({
      ...completion,
      model: "gpt-4.1",
      usage: {
        prompt_tokens: 12,
        completion_tokens: 2,
        total_tokens: 14,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
        cost_usd: "0.000040000",
      },
    });
    expect(s.store.settled).toEqual([
      {
        reservationId: "res-1",
        accountId: "acct-1",
        keyId: "key-1",
        model: "gpt-4.1",
        requestedModel: "gpt-4.1",
        promptTokens: 12,
        completionTokens: 2,
        cost: nanos(40_000n),
        cachedTokens: 0,
        saved: nanos(0),
        latencyMs: NOW - STARTED_AT,
        now: NOW,
      },
    ]);
    expect(s.store.released).toEqual([]);
    expect(s.leases.held.size).toBe(0);
  });

  test("a GPT-5 request goes upstream with max_completion_tokens and without temperature", async () => {
    const s = setup();
    const admitted = await admitChat(s.ports, s.call({ model: "gpt-5", messages, max_tokens: 100, temperature: 0.2 }));
    await completeChat(s.ports, admitted);
    expect(s.provider.calls.map((c) => c.body)).toEqual([{ model: "gpt-5", messages, max_completion_tokens: 100 }]);
  });

  test.each([
    ["a provider 500", upstreamFailure(500, "", []), "Upstream provider request failed with status 500", true],
    ["a provider timeout", new ProviderTimeout(120_000), "Upstream provider timed out after 120 s", true],
    ["a rejected request (400)", upstreamFailure(400, JSON.stringify({ error: { message: "context too long" } }), []), "context too long", false],
    ["an unexpected error", new TypeError("boom"), "internal error", false],
  ] as const)("%s releases with its message and fails the request", async (_title, error, reason, providerFailed) => {
    const s = setup();
    s.provider.answer = () => Promise.reject(error);
    const admitted = await admitChat(s.ports, s.call({ model: "gpt-4.1", messages }));
    await expect(completeChat(s.ports, admitted)).rejects.toBe(error);
    expect({ settled: s.store.settled, released: s.store.released.map((r) => r.reason) }).toEqual({ settled: [], released: [reason] });
    expect(s.observer.calls.filter(([c]) => c === "providerFailed")).toHaveLength(providerFailed ? 1 : 0);
    expect(s.leases.held.size).toBe(0);
  });

  test.each([
    ["not JSON", undefined],
    ["no choices", { id: "x", usage: completion.usage }],
    ["an array", [completion]],
  ])("an answer with %s is a provider_error about a malformed response", async (_title, answer) => {
    const s = setup();
    s.provider.answer = async () => answer;
    const admitted = await admitChat(s.ports, s.call({ model: "gpt-4.1", messages }));
    const error = await completeChat(s.ports, admitted).catch((e: unknown) => e as AppError);
    expect({ kind: error.kind, message: error.message }).toEqual({ kind: "provider_error", message: "Upstream provider returned a malformed response" });
    expect(s.store.released.map((r) => r.reason)).toEqual(["Upstream provider returned a malformed response"]);
    expect(s.observer.calls).toContainEqual(["providerFailed"]);
  });
});

describe("openStream", () => {
  test("asks for a stream with usage and hands the relay the provider's events and the session", async () => {
    const s = setup();
    const events = (async function* () {
      yield { events: ["[DONE]"] };
    })();
    s.provider.events = async () => events;
    const admitted = await admitChat(s.ports, s.call({ model: "deepseek-v3.2", messages, stream: true, max_tokens: 50 }));
    const relay = await openStream(s.ports, admitted);
    expect(s.provider.calls).toEqual([
      {
        model: model("deepseek-v3.2"),
        body: { model: "deepseek-chat", messages, max_tokens: 50, stream: true, stream_options: { include_usage: true } },
        signal: s.signal,
        controller: s.controller,
      },
    ]);
    expect(relay.events).toBe(events);
    expect(relay.billing).toBe(admitted.billing);
    expect(relay.model).toEqual(model("deepseek-v3.2"));
    expect(s.store.settled.length + s.store.released.length).toBe(0); // the relay ends it
  });

  test("a provider that fails before answering releases with its message and fails the request", async () => {
    const s = setup();
    const error = upstreamFailure(503, "", []);
    s.provider.events = () => Promise.reject(error);
    const admitted = await admitChat(s.ports, s.call({ model: "gpt-4.1", messages, stream: true }));
    await expect(openStream(s.ports, admitted)).rejects.toBe(error);
    expect(s.store.released.map((r) => r.reason)).toEqual(["Upstream provider request failed with status 503"]);
    expect(s.observer.calls).toEqual([["resolved", "gpt-4.1"], ["identify", "key-1"], ["opened", "gpt-4.1"], ["providerFailed"], ["closed", null]]);
  });
});
