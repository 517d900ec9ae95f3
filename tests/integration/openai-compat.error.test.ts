// OpenAI's documented fields are validated before anything is reserved, and errors carry the
// retry hints the OpenAI SDKs obey (x-should-retry before Retry-After).
import { afterAll, expect, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

const INVALID: [field: string, value: unknown, says: string][] = [
  ["n", 9, "n must be an integer from 1 to 8"],
  ["n", 0, "n must be an integer from 1 to 8"],
  ["logprobs", "yes", "logprobs must be a boolean"],
  ["top_logprobs", 21, "top_logprobs must be an integer from 0 to 20"],
  ["logit_bias", { "50256": 101 }, "logit_bias must map token IDs to numbers from -100 to 100"],
  ["logit_bias", { token: 1 }, "logit_bias must map token IDs to numbers from -100 to 100"],
  ["user", 42, "user must be a string of at most 256 characters"],
  ["metadata", { a: 1 }, "metadata must be an object of at most 16 string values"],
  ["metadata", Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])), "metadata must be an object of at most 16 string values"],
  ["store", "true", "store must be a boolean"],
  ["parallel_tool_calls", 1, "parallel_tool_calls must be a boolean"],
  ["reasoning_effort", "extreme", "reasoning_effort must be one of none, minimal, low, medium, high, xhigh"],
  ["verbosity", "loud", "verbosity must be one of low, medium, high"],
  ["service_tier", "gold", "service_tier must be one of auto, default, flex, scale, priority"],
  ["modalities", ["video"], "modalities must be an array of \"text\" and \"audio\""],
  ["audio", { voice: "alloy", format: "midi" }, "audio must be {voice, format}"],
  ["prediction", { type: "guess", content: "x" }, "prediction must be {type: \"content\""],
  ["web_search_options", { search_context_size: "huge" }, "web_search_options must be {search_context_size?"],
  ["stream_options", { include_usage: "yes" }, "stream_options must be {include_usage?: boolean"],
  ["tools", [{ type: "custom", custom: {} }], "tools must be an array of at most 64 tools"],
];

describeEachDialect("OpenAI compatibility: refusals", (dialect) => {
  const gateway = useGateway(dialect, { ...providerEnv(fake), MAX_CONCURRENT_REQUESTS: "1" });

  test.each(INVALID)("%p = %j is refused with 400 before anything is reserved or forwarded", async (field, value, says) => {
    const { secret, account } = await fundedKey(gateway().store, "1");
    const sentBefore = fake.received.length;
    const res = await postChat(gateway().url, secret, hello("gpt-4.1", { [field]: value }));
    expect(res.status).toBe(400);
    const body = await readJson(res);
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toStartWith(`Invalid request: ${says}`);
    expect(fake.received.length).toBe(sentBefore);
    expect((await gateway().store.usageLogPage(account.id, null, 10)).length).toBe(0);
  });

  test("a custom tool is accepted and forwarded", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "1");
    const tools = [{ type: "custom", custom: { name: "code_exec", description: "Runs Python", format: { type: "text" } } }];
    const res = await postChat(gateway().url, secret, hello("gpt-4.1", { tools }));
    expect(res.status).toBe(200);
    expect(fake.received.at(-1)!.body.tools).toEqual(tools);
  });

  test("402 says not to retry; 502 says to retry", async () => {
    const { secret } = await fundedKey(gateway().store, "0");
    const poor = await postChat(gateway().url, secret, hello());
    expect(poor.status).toBe(402);
    expect(poor.headers.get("x-should-retry")).toBe("false");
    expect(poor.headers.get("retry-after")).toBeNull();

    fake.behave({ status: 500 });
    const funded = await fundedKey(gateway().store, "1");
    const failed = await postChat(gateway().url, funded.secret, hello());
    expect(failed.status).toBe(502);
    expect(failed.headers.get("x-should-retry")).toBe("true");
  });

  test("a 402 names the largest max_tokens that fits, and that value is admitted", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "0.02");
    const body = (maxTokens: number) => hello("gpt-4.1", { max_tokens: maxTokens, n: 3 });
    const refused = await postChat(gateway().url, secret, body(1000));
    expect(refused.status).toBe(402);
    const message = (await readJson(refused)).error.message as string;
    const fits = Number(/The largest max_tokens that fits is (\d+)\./.exec(message)?.[1]);
    expect(fits).toBeGreaterThan(700);
    expect(fits).toBeLessThan(1000);
    // The same body shape one digit shorter or longer changes the estimate: stay at 3 digits.
    expect((await postChat(gateway().url, secret, body(fits + 1))).status).toBe(402);
    expect((await postChat(gateway().url, secret, body(fits))).status).toBe(200);
  });

  test("the concurrency 429 says to retry after a second", async () => {
    let release!: () => void;
    fake.behave({ holdUntil: new Promise<void>((resolve) => (release = resolve)) });
    const { secret } = await fundedKey(gateway().store, "1");
    const sentBefore = fake.received.length;
    const held = postChat(gateway().url, secret, hello());
    await waitFor(() => fake.received.length > sentBefore, "the first request reaches the provider");
    const busy = await postChat(gateway().url, secret, hello());
    release();
    expect((await held).status).toBe(200);
    expect(busy.status).toBe(429);
    expect(busy.headers.get("retry-after")).toBe("1");
    expect(busy.headers.get("x-should-retry")).toBe("true");
  });
});
