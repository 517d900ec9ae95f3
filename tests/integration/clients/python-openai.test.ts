// The official Python `openai` SDK against the gateway with only the base URL changed, run as a
// child process. Skipped, with the reason printed, when the SDK cannot be had on this machine.
import { afterAll, expect, test } from "bun:test";
import { nanos } from "../../../src/core/money.ts";
import { fundedKey } from "../../support/accounts.ts";
import { costOf, usd9 } from "../../support/clients.ts";
import { describeEachDialect } from "../../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../../support/fake-upstream.ts";
import { pythonModule, runPython } from "../../support/python.ts";
import { useGateway } from "../../support/server.ts";

const python = pythonModule("openai");
if (!python.ok) console.log(`skipping the Python openai SDK tests: ${python.reason}`);
const interpreter = python.ok ? python.interpreter : "python3";

// Each step's outcome as one JSON line on stdout (models dumped as the gateway sent them, exclude_unset); a step that throws prints its error class.
const SCRIPT = String.raw`
import json, os, openai
sent = []
# The SDK's own HTTP client class (httpx or its successor, whichever this version uses), counting requests.
http = openai.DefaultHttpxClient(event_hooks={"request": [lambda r: sent.append(r.url.path)]})
client = openai.OpenAI(base_url=os.environ["GW_BASE_URL"], api_key=os.environ["GW_KEY"], http_client=http)
step = os.environ["GW_STEP"]
out = {}
try:
    if step == "create":
        c = client.chat.completions.create(model="gpt-4.1-nano", messages=[{"role": "user", "content": "hello"}], max_tokens=64, n=2, logprobs=True, top_logprobs=1)
        out = {"model": c.model, "contents": [ch.message.content for ch in c.choices], "usage": c.usage.model_dump(exclude_unset=True), "tokens": "".join(t.token for t in c.choices[0].logprobs.content)}
    elif step == "stream":
        text, reasoning, usage = [], [], None
        with client.chat.completions.create(model="deepseek-v4-flash", messages=[{"role": "user", "content": "hello"}], max_tokens=64, stream=True) as s:
            for chunk in s:
                if chunk.choices:
                    d = chunk.choices[0].delta
                    text.append(d.content or "")
                    reasoning.append(getattr(d, "reasoning_content", None) or "")
                if chunk.usage is not None:
                    usage = chunk.usage.model_dump(exclude_unset=True)
        out = {"text": "".join(text), "reasoning": "".join(reasoning), "usage": usage}
    elif step == "tools":
        c = client.chat.completions.create(model="gpt-4.1-nano", messages=[{"role": "user", "content": "Weather?"}], max_tokens=64,
            tools=[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}])
        out = {"finish": c.choices[0].finish_reason, "calls": [[t.id, t.function.name, t.function.arguments] for t in c.choices[0].message.tool_calls]}
    elif step == "models":
        out = {"ids": sorted(m.id for m in client.models.list()), "one": client.models.retrieve("kimi-k2.5").model_dump(exclude_unset=True)}
    elif step == "errors":
        errors = []
        for call in (lambda: client.chat.completions.create(model="gpt-4.1-nano", messages=[{"role": "user", "content": "x"}], max_tokens=8),
                     lambda: client.chat.completions.create(model="gpt-4.1-nano", messages=[{"role": "user", "content": "x"}], max_tokens=8),
                     lambda: client.models.retrieve("no-such-model")):
            try:
                call()
                errors.append("none")
            except openai.APIStatusError as e:
                errors.append(type(e).__name__ + " " + str(e.status_code))
        out = {"errors": errors}
except openai.APIStatusError as e:
    out = {"error": type(e).__name__, "status": e.status_code}
out["requests"] = len(sent)
print(json.dumps(out))
`;

const fake = startFakeUpstream();
afterAll(() => fake.stop());

describeEachDialect("the Python openai SDK", (dialect) => {
  const gateway = useGateway(dialect, providerEnv(fake));

  /** Runs one step of the script with the SDK's defaults (2 retries) and returns its JSON line. */
  const run = (step: string, key: string): Promise<any> => runPython(interpreter, SCRIPT, { GW_BASE_URL: `${gateway().url}/v1`, GW_KEY: key, GW_STEP: step });

  test.skipIf(!python.ok)("create with n and logprobs: both choices, the tokens, usage with cost_usd, an exact charge", async () => {
    fake.behave({ usage: { prompt_tokens: 40, completion_tokens: 20 }, usageDetails: { cached_tokens: 10 } });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const cost = costOf("gpt-4.1-nano", 40, 20, 10);
    expect(await run("create", secret)).toEqual({
      model: "gpt-4.1-nano",
      contents: ["Hello from the fake provider", "Hello from the fake provider #2"],
      tokens: "Hello from the fake provider",
      usage: {
        prompt_tokens: 40,
        completion_tokens: 20,
        total_tokens: 60,
        prompt_tokens_details: { cached_tokens: 10 },
        completion_tokens_details: { reasoning_tokens: 0 },
        cost_usd: usd9(cost),
      },
      requests: 1,
    });
    expect((await gateway().store.getAccount(account.id))!.balance).toBe(nanos(1_000_000_000n - cost));
  }, 60_000);

  test.skipIf(!python.ok)("stream: text, reasoning_content and the usage in the final chunk", async () => {
    fake.behave({ chunks: 3, reasoningContent: "Mull it over.", usage: { prompt_tokens: 25, completion_tokens: 15 } });
    const { secret } = await fundedKey(gateway().store, "1");
    const out = await run("stream", secret);
    expect(out.text).toBe("Hello from the fake provider");
    expect(out.reasoning).toBe("Mull it over.");
    expect(out.usage).toMatchObject({ prompt_tokens: 25, completion_tokens: 15, total_tokens: 40, cost_usd: usd9(costOf("deepseek-v4-flash", 25, 15)) });
  }, 60_000);

  test.skipIf(!python.ok)("a tool call comes back to the Python SDK", async () => {
    fake.behave({ toolCalls: [{ name: "get_weather", arguments: '{"city":"Rome"}' }] });
    const { secret } = await fundedKey(gateway().store, "1");
    expect(await run("tools", secret)).toEqual({ finish: "tool_calls", calls: [["call_fake_0_0", "get_weather", '{"city":"Rome"}']], requests: 1 });
  }, 60_000);

  test.skipIf(!python.ok)("models.list() and models.retrieve()", async () => {
    const { secret } = await fundedKey(gateway().store, "0");
    const out = await run("models", secret);
    const enabled = (await gateway().store.listModels()).filter((m) => m.enabled).map((m) => m.id).sort();
    expect(out.ids).toEqual(enabled);
    expect(out.one).toEqual({ id: "kimi-k2.5", object: "model", created: expect.any(Number), owned_by: "moonshot" });
  }, 60_000);

  test.skipIf(!python.ok)("error classes, without retries where the gateway says so: success, RateLimitError 429 (hourly), NotFoundError 404", async () => {
    fake.behave({});
    const { secret } = await fundedKey(gateway().store, "1", { requestsPerHour: 1 });
    // One success, one hourly-limit refusal not retried, one unknown model: three requests in all.
    expect(await run("errors", secret)).toEqual({ errors: ["none", "RateLimitError 429", "NotFoundError 404"], requests: 3 });
  }, 60_000);

  test.skipIf(!python.ok)("a wrong key is an AuthenticationError", async () => {
    expect(await run("tools", `gw-${"Z".repeat(44)}`)).toEqual({ error: "AuthenticationError", status: 401, requests: 1 });
  }, 60_000);
});
