// Provider-run tools the operator sells (HOSTED_TOOL_PRICES=web_search=0.01): forwarded natively
// with max_tool_calls, reserved for every call allowed, and each search the provider reports
// charged at its price on the request's usage row; unsold ones and translated models leave them
// out and name them.
import { afterAll, expect, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider, type Script } from "../support/fake-responses.ts";
import { costOf, postResponses, responsesEnv } from "../support/responses.ts";
import { useGateway } from "../support/server.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

const NATIVE = "gpt-5.5";
const SEARCH = 10_000_000n; // $0.01 in nano-USD
const webSearch = { type: "web_search" };

describeEachDialect("Responses: provider-run tools the operator sells", (dialect) => {
  const gateway = useGateway(dialect, { ...responsesEnv(fake), HOSTED_TOOL_PRICES: "web_search=0.01", SECRET_KEY: "3c".repeat(32) });

  const settled = async (accountId: string) => {
    const [row] = await gateway().store.usageLogPage(accountId, null, 1);
    const account = (await gateway().store.getAccount(accountId))!;
    return { cost: row!.cost, balance: account.balance, reserved: account.reserved, inflight: account.inflight };
  };

  test.each([false, true])("each search reported is charged at its price beside the tokens (stream: %p)", async (stream) => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    fake.script({ searches: 2, text: "Sunny.", usage: { input: 300, output: 20 } });
    const answer = await postResponses(gateway().url, secret, { model: NATIVE, input: "weather?", tools: [webSearch, { type: "file_search" }], stream });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-gateway-dropped-params")).toBe("tools.file_search");
    const text = await answer.text();
    const sent = fake.received.at(-1)!.body;
    expect([sent.tools, sent.max_tool_calls]).toEqual([[webSearch], 10]);
    const cost = costOf(NATIVE, 300, 20) + 2n * SEARCH;
    expect(await settled(account.id)).toEqual({ cost, balance: 5_000_000_000n - cost, reserved: 0n, inflight: 0 } as never);
    // The client is told the same charge.
    expect(text).toContain(`"cost_usd":"${(Number(cost) / 1e9).toFixed(9)}"`);
  });

  test("a native fallback after a translated first model is sent the sold tool, reserved and charged for its calls", async () => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    // The translated first model (DeepSeek's) is overloaded; the native one answers with searches.
    fake.script(({ path }): Script => (path.endsWith("/responses") ? { searches: 2, text: "Sunny.", usage: { input: 300, output: 20 } } : { status: 503, usage: { input: 0, output: 0 } }));
    const answer = await postResponses(gateway().url, secret, { models: ["deepseek-v3.2", NATIVE], input: "weather?", tools: [webSearch] });
    expect({ status: answer.status, served: answer.headers.get("x-gateway-model") }).toEqual({ status: 200, served: NATIVE });
    expect(fake.received.at(-1)!.body.tools).toEqual([webSearch]);
    expect((await settled(account.id)).cost).toBe((costOf(NATIVE, 300, 20) + 2n * SEARCH) as never);
  });

  test("max_tool_calls bounds the reservation and the charge: never more calls than were allowed", async () => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    fake.script({ searches: 5, text: "Sunny.", usage: { input: 100, output: 5 } });
    const answer = await postResponses(gateway().url, secret, { model: NATIVE, input: "weather?", tools: [webSearch], max_tool_calls: 3 });
    expect(answer.status).toBe(200);
    expect(fake.received.at(-1)!.body.max_tool_calls).toBe(3);
    expect((await settled(account.id)).cost).toBe((costOf(NATIVE, 100, 5) + 3n * SEARCH) as never);
  });

  test("a balance that covers the tokens but not every search allowed is a 402", async () => {
    const { secret, account } = await fundedKey(gateway().store, "0.05");
    const sent = fake.received.length;
    const answer = await postResponses(gateway().url, secret, { model: NATIVE, input: "weather?", tools: [webSearch], max_output_tokens: 16 });
    expect(answer.status).toBe(402);
    expect(fake.received.length).toBe(sent);
    expect(await postResponses(gateway().url, secret, { model: NATIVE, input: "weather?", tools: [webSearch], max_output_tokens: 16, max_tool_calls: 1 }).then((r) => r.status)).toBe(200);
    expect((await gateway().store.getAccount(account.id))!.reserved).toBe(0n as never);
  });

  test("a translated model cannot run it: left out and named, the tokens alone charged", async () => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    fake.script({ text: "No search here.", usage: { input: 50, output: 4 } });
    const answer = await postResponses(gateway().url, secret, { model: "deepseek-v3.2", input: "weather?", tools: [webSearch] });
    expect(answer.headers.get("x-gateway-dropped-params")).toBe("tools.web_search");
    expect(fake.received.at(-1)!.body.tools).toBeUndefined();
    expect((await settled(account.id)).cost).toBe(costOf("deepseek-v3.2", 50, 4) as never);
  });
});
