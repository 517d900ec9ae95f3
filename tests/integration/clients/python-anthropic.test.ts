// The official Python `anthropic` SDK against the gateway's /v1/messages with only the base URL
// changed, run as a child process, on a native (DeepSeek's Anthropic API) and a translated
// (OpenAI) model. Skipped, with the reason printed, when the SDK cannot be had on this machine.
import { afterAll, expect, test } from "bun:test";
import { fundedKey } from "../../support/accounts.ts";
import { describeEachDialect } from "../../support/databases.ts";
import { startFakeResponsesProvider } from "../../support/fake-responses.ts";
import { ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED, messagesEnv, messageUsage } from "../../support/messages.ts";
import { pythonModule, runPython } from "../../support/python.ts";
import { costOf } from "../../support/responses.ts";
import { useGateway } from "../../support/server.ts";

const python = pythonModule("anthropic");
if (!python.ok) console.log(`skipping the Python anthropic SDK tests: ${python.reason}`);
const interpreter = python.ok ? python.interpreter : "python3";

// Each step's outcome as one JSON line on stdout; a step that fails prints the SDK's error class and status.
const SCRIPT = String.raw`
import json, os, anthropic
client = anthropic.Anthropic(base_url=os.environ["GW_BASE_URL"], api_key=os.environ["GW_KEY"], max_retries=0)
model, step = os.environ["GW_MODEL"], os.environ["GW_STEP"]
out = {}
try:
    if step == "create":
        m = client.messages.create(model=model, max_tokens=64, system="Be brief", messages=[{"role": "user", "content": "hello"}])
        out = {"model": m.model, "text": m.content[0].text, "stop": m.stop_reason, "usage": m.usage.model_dump()}
    elif step == "stream":
        with client.messages.stream(model=model, max_tokens=64, messages=[{"role": "user", "content": "hello"}]) as s:
            text = "".join(s.text_stream)
            final = s.get_final_message()
        out = {"text": text, "stop": final.stop_reason, "output_tokens": final.usage.output_tokens}
    elif step == "tools":
        tools = [{"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]
        m = client.messages.create(model=model, max_tokens=64, tools=tools, messages=[{"role": "user", "content": "Weather?"}])
        out = {"stop": m.stop_reason, "calls": [[b.id, b.name, b.input] for b in m.content if b.type == "tool_use"]}
    elif step == "unknown-claude":
        client.messages.create(model="claude-sonnet-4-5", max_tokens=8, messages=[{"role": "user", "content": "x"}])
except anthropic.APIStatusError as e:
    out = {"error": type(e).__name__, "status": e.status_code, "type": e.body["error"]["type"]}
print(json.dumps(out))
`;

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

describeEachDialect("the Python anthropic SDK", (dialect) => {
  const gateway = useGateway(dialect, messagesEnv(fake));
  const run = (step: string, key: string, model: string): Promise<any> => runPython(interpreter, SCRIPT, { GW_BASE_URL: gateway().url, GW_KEY: key, GW_STEP: step, GW_MODEL: model });

  test.skipIf(!python.ok).each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])("%s: create, with the usage and its exact charge", async (model) => {
    const usage = { input: 300, output: 20, cached: 256 };
    fake.script({ text: "Hello back", usage });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const { cost_usd: _cost, ...counts } = messageUsage(model, usage);
    const out = await run("create", secret, model);
    expect(out).toMatchObject({ model, text: "Hello back", stop: "end_turn" });
    expect(out.usage).toMatchObject(counts);
    expect((await gateway().store.getAccount(account.id))!.balance).toBe((1_000_000_000n - costOf(model, 300, 20, 256)) as never);
  }, 60_000);

  test.skipIf(!python.ok).each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])("%s: the stream helper's text and final message", async (model) => {
    fake.script({ text: "one two three", usage: { input: 12, output: 3 } });
    const { secret } = await fundedKey(gateway().store, "1");
    expect(await run("stream", secret, model)).toEqual({ text: "one two three", stop: "end_turn", output_tokens: 3 });
  }, 60_000);

  test.skipIf(!python.ok).each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])("%s: a tool_use block comes back with its input as an object", async (model) => {
    fake.script({ call: { call_id: "toolu_9", name: "get_weather", arguments: '{"city":"Rome"}' }, usage: { input: 30, output: 9 } });
    const { secret } = await fundedKey(gateway().store, "1");
    expect(await run("tools", secret, model)).toEqual({ stop: "tool_use", calls: [["toolu_9", "get_weather", { city: "Rome" }]] });
  }, 60_000);

  test.skipIf(!python.ok)("a claude-* model the catalog does not serve raises NotFoundError", async () => {
    const { secret } = await fundedKey(gateway().store, "1");
    expect(await run("unknown-claude", secret, ANTHROPIC_NATIVE)).toEqual({ error: "NotFoundError", status: 404, type: "not_found_error" });
  }, 60_000);
});
