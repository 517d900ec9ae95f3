import { describe, expect, test } from "bun:test";
import { ProviderTimeout, unreachable, upstreamFailure } from "../../../src/core/chat/failures.ts";
import { admitChat, completeChat, openStream, type ChatCall, type ChatPorts } from "../../../src/core/chat/pipeline.ts";
import { priceRequest } from "../../../src/core/chat/price.ts";
import type { ChatProvider, ProviderCall, StreamRead } from "../../../src/core/chat/provider.ts";
import { parseChatRequest } from "../../../src/core/chat/request.ts";
import type { Model } from "../../../src/core/catalog.ts";
import { AppError } from "../../../src/core/errors.ts";
import { CALLER, chatWorld, model } from "./fakes.ts";

const messages = [{ role: "user", content: "hello" }];
const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
const completion = (upstream: string) => ({ id: "c-1", object: "chat.completion", model: upstream, choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }], usage });

/** Each model's provider fails with its scripted error, or answers. */
class PerModelProvider implements ChatProvider {
  readonly calls: ProviderCall[] = [];
  readonly failures = new Map<string, unknown>();
  withoutUsage = false;
  private attempt(call: ProviderCall): void {
    this.calls.push(call);
    const failure = this.failures.get(call.model.id);
    if (failure) throw failure;
  }
  async complete(call: ProviderCall): Promise<unknown> {
    this.attempt(call);
    const answer: Record<string, unknown> = completion(call.model.upstreamModel);
    if (this.withoutUsage) delete answer.usage;
    return answer;
  }
  async stream(call: ProviderCall): Promise<AsyncIterable<StreamRead>> {
    this.attempt(call);
    return (async function* () {})();
  }
}

const setup = (catalog: Model[] = [model("gpt-4.1"), model("gpt-5"), model("deepseek-v3.2"), model("deepseek-v3.2-speciale"), model("gpt-4.1-nano")], aliases: Record<string, string[]> = {}) =>
  chatWorld(new PerModelProvider(), catalog, aliases);

const outcome = (s: ReturnType<typeof setup>) => ({
  tried: s.provider.calls.map((c) => c.model.id),
  settled: s.store.settled.map((x) => [x.model, x.requestedModel, x.cost]),
  released: s.store.released.length,
});

describe("a request with fallbacks", () => {
  test.each([
    ["connection refused", unreachable(false, 0), "unreachable"],
    ["a timeout", new ProviderTimeout(120_000), "timeout"],
    ["429", upstreamFailure(429, "", []), "rate_limited"],
    ["503", upstreamFailure(503, "", []), "server_error"],
    ["a context-length 400", upstreamFailure(400, JSON.stringify({ error: { message: "This model's maximum context length is 128000 tokens", code: "context_length_exceeded" } }), []), "context_length"],
  ])("passes to the next candidate on %s and charges the one that served, at its prices", async (_title, failure, reason) => {
    const s = setup();
    s.provider.failures.set("gpt-4.1", failure);
    const admitted = await admitChat(s.ports, s.call({ models: ["gpt-4.1", "deepseek-v3.2"], messages }));
    const response = await completeChat(s.ports, admitted);
    const served = model("deepseek-v3.2");
    const cost = priceRequest({ messages: [], max_tokens: 5 }, served, 10 - 3).costOf(5); // 10 prompt, 5 completion tokens at its prices
    expect(outcome(s)).toEqual({ tried: ["gpt-4.1", "deepseek-v3.2"], settled: [["deepseek-v3.2", "gpt-4.1", cost]], released: 0 });
    expect(response.model).toBe("deepseek-v3.2");
    expect(admitted.target.model.id).toBe("deepseek-v3.2");
    expect(s.observer.calls.filter(([c]) => c === "fellBack")).toEqual([["fellBack", "gpt-4.1", "deepseek-v3.2", reason]]);
    // Each candidate's exchange has a timeout of its own: none is given the request's controller.
    expect(s.provider.calls.map((c) => c.controller)).toEqual([undefined, undefined]);
  });

  test.each([
    ["a 400 that is the client's", upstreamFailure(400, JSON.stringify({ error: { message: "messages[0] is invalid" } }), [])],
    ["a 422", upstreamFailure(422, "", [])],
    ["a 401 after every key", upstreamFailure(401, "", [])],
    ["an unexpected error", new TypeError("boom")],
  ])("fails as the first candidate failed on %s, trying no other", async (_title, failure) => {
    const s = setup();
    s.provider.failures.set("gpt-4.1", failure);
    const admitted = await admitChat(s.ports, s.call({ models: ["gpt-4.1", "deepseek-v3.2"], messages }));
    await expect(completeChat(s.ports, admitted)).rejects.toBe(failure);
    expect(outcome(s)).toEqual({ tried: ["gpt-4.1"], settled: [], released: 1 });
  });

  test("the last candidate's failure is the request's, released once", async () => {
    const s = setup();
    const last = upstreamFailure(503, "", []);
    s.provider.failures.set("gpt-4.1", upstreamFailure(429, "", [])).set("gpt-5", unreachable(false, 0)).set("deepseek-v3.2", last);
    const admitted = await admitChat(s.ports, s.call({ model: "gpt-4.1", models: ["gpt-5", "deepseek-v3.2"], messages }));
    await expect(completeChat(s.ports, admitted)).rejects.toBe(last);
    expect(outcome(s)).toEqual({ tried: ["gpt-4.1", "gpt-5", "deepseek-v3.2"], settled: [], released: 1 });
  });

  test("a stream falls back before its first byte and relays the model that answered", async () => {
    const s = setup();
    s.provider.failures.set("gpt-4.1", upstreamFailure(500, "", []));
    const admitted = await admitChat(s.ports, s.call({ models: ["gpt-4.1", "gpt-5"], messages, stream: true }));
    const relay = await openStream(s.ports, admitted);
    expect({ tried: s.provider.calls.map((c) => c.model.id), relayed: relay.model.id, billed: relay.billing.reservation.model.id }).toEqual({ tried: ["gpt-4.1", "gpt-5"], relayed: "gpt-5", billed: "gpt-5" });
  });

  test("an answer without usage after a fallback is charged the serving model's worst case, not the dearest's", async () => {
    const s = setup();
    s.provider.failures.set("gpt-5", upstreamFailure(503, "", []));
    s.provider.withoutUsage = true;
    const admitted = await admitChat(s.ports, s.call({ models: ["gpt-5", "deepseek-v3.2"], messages, max_tokens: 100 }));
    await completeChat(s.ports, admitted);
    const worst = priceRequest({ messages, max_tokens: 100 }, model("deepseek-v3.2"), 200).amount;
    expect({ charged: s.store.settled.map((x) => x.cost), reserved: admitted.billing.reservation.amount > worst }).toEqual({ charged: [worst], reserved: true });
  });

  test("a client that left is not passed to the next candidate", async () => {
    const s = setup();
    const failure = upstreamFailure(503, "", []);
    s.provider.failures.set("gpt-4.1", failure);
    const admitted = await admitChat(s.ports, s.call({ models: ["gpt-4.1", "gpt-5"], messages }));
    s.controller.abort();
    await expect(completeChat(s.ports, admitted)).rejects.toBe(failure);
    expect(outcome(s).tried).toEqual(["gpt-4.1"]);
  });

  test("a request for one model keeps the request's controller and has no fallbacks", async () => {
    const s = setup();
    const admitted = await admitChat(s.ports, s.call({ model: "gpt-4.1", messages }));
    await completeChat(s.ports, admitted);
    expect({ fallbacks: admitted.fallbacks, controller: s.provider.calls[0]?.controller }).toEqual({ fallbacks: [], controller: s.controller });
  });
});

describe("choosing the candidates", () => {
  test("`model` first, then `models`, each once; the reservation covers the dearest", async () => {
    const s = setup();
    const admitted = await admitChat(s.ports, s.call({ model: "deepseek-v3.2", models: ["gpt-5", "deepseek-v3.2", "gpt-4.1"], messages, max_tokens: 1000 }));
    expect([admitted.target.model.id, ...admitted.fallbacks.map((m) => m.id)]).toEqual(["deepseek-v3.2", "gpt-5", "gpt-4.1"]);
    const dearest = [model("deepseek-v3.2"), model("gpt-5"), model("gpt-4.1")].map((m) => priceRequest({ messages, max_tokens: 1000 }, m, 200).amount).reduce((a, b) => (a > b ? a : b));
    expect(s.store.asked[0]?.admission).toMatchObject({ model: "deepseek-v3.2", requestedModel: "deepseek-v3.2", amount: dearest });
    expect(admitted.billing.reservation.amount).toBe(dearest);
  });

  test("an alias stands for its models, and is the requested model", async () => {
    const s = setup(undefined, { fast: ["gpt-4.1-nano", "deepseek-v3.2"] });
    const admitted = await admitChat(s.ports, s.call({ model: "fast", messages }));
    expect([admitted.target.model.id, ...admitted.fallbacks.map((m) => m.id)]).toEqual(["gpt-4.1-nano", "deepseek-v3.2"]);
    expect(admitted.billing.reservation.requestedModel).toBe("fast");
  });

  test("an unknown ID in `models` is a 400 naming the field", async () => {
    const s = setup();
    const error = (await admitChat(s.ports, s.call({ models: ["gpt-4.1", "nope"], messages })).catch((e: unknown) => e)) as AppError;
    expect({ status: error.status, param: error.param, message: error.message }).toEqual({ status: 400, param: "models", message: "Invalid request: models names `nope`, which is not a catalog model" });
    expect(s.store.asked).toEqual([]);
  });

  test.each([
    [[], "must be an array of 2 to 5 model IDs"],
    [["gpt-4.1"], "must be an array of 2 to 5 model IDs"],
    [["a", "b", "c", "d", "e", "f"], "must be an array of 2 to 5 model IDs"],
    ["gpt-4.1", "must be an array of 2 to 5 model IDs"],
    [["gpt-4.1", 7], "must be an array of 2 to 5 model IDs"],
  ])("`models: %j` is a 400 naming the field", (models, rule) => {
    const error = (() => { try { parseChatRequest({ models, messages }); } catch (e) { return e as AppError; } })()!;
    expect({ status: error.status, param: error.param, message: error.message }).toEqual({ status: 400, param: "models", message: `Invalid request: models ${rule}` });
  });

  test("disabled candidates, and those whose context window is too small, are skipped", async () => {
    const small = { ...model("gpt-4.1-nano"), contextWindow: 1_000 };
    const off = { ...model("gpt-5"), enabled: false };
    const s = setup([model("gpt-4.1"), small, off]);
    const admitted = await admitChat(s.ports, s.call({ models: ["gpt-4.1-nano", "gpt-5", "gpt-4.1"], messages }, 40_000));
    expect([admitted.target.model.id, ...admitted.fallbacks.map((m) => m.id)]).toEqual(["gpt-4.1"]);
    // The usage row still says what was asked for.
    expect(admitted.billing.reservation.requestedModel).toBe("gpt-4.1-nano");
  });

  test("a candidate that cannot take the request's tools or images is skipped", async () => {
    const s = setup();
    const tools = [{ type: "function", function: { name: "f" } }];
    const withTools = await admitChat(s.ports, s.call({ models: ["deepseek-v3.2-speciale", "deepseek-v3.2"], messages, tools }));
    expect(withTools.target.model.id).toBe("deepseek-v3.2");
    const image = [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }];
    const withImage = await admitChat(s.ports, s.call({ models: ["deepseek-v3.2", "gpt-4.1"], messages: image }));
    expect(withImage.target.model.id).toBe("gpt-4.1");
  });

  test("with no candidate left, the first one's own error", async () => {
    const s = setup();
    const tools = [{ type: "function", function: { name: "f" } }];
    const error = (await admitChat(s.ports, s.call({ model: "deepseek-v3.2-speciale", models: ["deepseek-v3.2-speciale", "deepseek-v3.2-speciale"], messages, tools })).catch((e: unknown) => e)) as AppError;
    expect({ status: error.status, message: error.message }).toEqual({ status: 400, message: "The model `deepseek-v3.2-speciale` does not take tools" });
  });

  test("parameters a candidate's family rejects are dropped and named for that candidate", async () => {
    const s = setup();
    s.provider.failures.set("gpt-4.1", upstreamFailure(503, "", []));
    const admitted = await admitChat(s.ports, s.call({ models: ["gpt-4.1", "gpt-5"], messages, temperature: 0.3 }));
    expect(admitted.target.upstream.dropped).toEqual([]);
    await completeChat(s.ports, admitted);
    expect({ sent: s.provider.calls.map((c) => c.body.temperature), dropped: admitted.target.upstream.dropped }).toEqual({ sent: [0.3, undefined], dropped: ["temperature"] });
  });
});

describe("a key with a model allowlist", () => {
  const restricted = (allowedModels: string[]) => ({ ...CALLER, key: { ...CALLER.key, allowedModels } });

  test("never reaches a model it is not allowed through a fallback, and is reserved for those it is", async () => {
    const s = setup();
    s.store.keyFound = restricted(["gpt-4.1", "deepseek-v3.2"]);
    const admitted = await admitChat(s.ports, s.call({ models: ["gpt-5", "gpt-4.1", "deepseek-v3.2"], messages, max_tokens: 500 }));
    expect([admitted.target.model.id, ...admitted.fallbacks.map((m) => m.id)]).toEqual(["gpt-4.1", "deepseek-v3.2"]);
    const allowedDearest = priceRequest({ messages, max_tokens: 500 }, model("gpt-4.1"), 200).amount;
    expect(s.store.reserved.map((r) => [r.model, r.requestedModel, r.amount])).toEqual([["gpt-4.1", "gpt-5", allowedDearest]]);
  });

  test("allowed none of the candidates: its 403 for what was asked, nothing reserved", async () => {
    const s = setup();
    s.store.keyFound = restricted(["gpt-4.1-nano"]);
    const error = (await admitChat(s.ports, s.call({ models: ["gpt-5", "gpt-4.1"], messages })).catch((e: unknown) => e)) as AppError;
    expect({ status: error.status, message: error.message }).toEqual({ status: 403, message: "This API key may not use the model `gpt-5`" });
    expect(s.store.reserved).toEqual([]);
    // Recorded for the business to see: under the first candidate, as asked, costing nothing.
    expect(s.store.refusals.map((r) => [r.keyId, r.model, r.requestedModel, r.reason])).toEqual([
      [CALLER.key.id, "gpt-5", "gpt-5", "This API key may not use the model `gpt-5`"],
    ]);
  });

  test("refused after the store held for it: the hold goes back as a refused request", async () => {
    const s = setup();
    s.store.keyFound = restricted(["gpt-4.1-nano"]);
    s.store.admitsAtLookup = "res-at-lookup";
    await admitChat(s.ports, s.call({ model: "gpt-4.1", messages })).catch(() => undefined);
    expect(s.store.released.map((r) => [r.reservationId, r.refused, r.reason])).toEqual([
      ["res-at-lookup", true, "This API key may not use the model `gpt-4.1`"],
    ]);
    expect(s.store.refusals).toEqual([]);
  });

  test("an alias it names lets it use the alias's models; one it does not name does not", async () => {
    const s = setup(undefined, { fast: ["gpt-5", "deepseek-v3.2"] });
    s.store.keyFound = restricted(["fast"]);
    const admitted = await admitChat(s.ports, s.call({ model: "fast", messages }));
    expect([admitted.target.model.id, ...admitted.fallbacks.map((m) => m.id)]).toEqual(["gpt-5", "deepseek-v3.2"]);
    s.store.keyFound = restricted(["gpt-4.1"]);
    const error = (await admitChat(s.ports, s.call({ model: "fast", messages })).catch((e: unknown) => e)) as AppError;
    expect(error.message).toBe("This API key may not use the model `fast`");
    // Naming the alias's models directly is judged model by model.
    const direct = await admitChat(s.ports, s.call({ models: ["gpt-5", "gpt-4.1"], messages }));
    expect(direct.target.model.id).toBe("gpt-4.1");
  });
});
