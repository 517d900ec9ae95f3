// The Vercel AI SDK's default OpenAI provider calls the Responses API: generateText and
// streamText against the gateway, on a native provider and a translated one, charged exactly.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText } from "ai";
import { afterAll, expect, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { costOf, NATIVE, responsesEnv, TRANSLATED } from "../support/responses.ts";
import { useGateway } from "../support/server.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

describeEachDialect("Responses API with the Vercel AI SDK", (dialect) => {
  const gateway = useGateway(dialect, responsesEnv(fake));

  const modelFor = async (model: string) => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    return { account, model: createOpenAI({ baseURL: `${gateway().url}/v1`, apiKey: secret })(model) };
  };
  const lastCost = async (accountId: string) => (await gateway().store.usageLogPage(accountId, null, 1))[0]!.cost;

  test.each([NATIVE, TRANSLATED])("%s: generateText gets the text and the usage it is charged", async (id) => {
    fake.script({ text: "Hi from the fake", usage: { input: 21, output: 5, cached: 16 } });
    const { account, model } = await modelFor(id);
    const result = await generateText({ model, system: "Be brief", prompt: "Say hi", maxOutputTokens: 100 });
    expect(result.text).toBe("Hi from the fake");
    expect([result.usage.inputTokens, result.usage.outputTokens]).toEqual([21, 5]);
    expect(fake.received.at(-1)!.path).toBe(id === NATIVE ? "/v1/responses" : "/v1/chat/completions");
    expect(await lastCost(account.id)).toBe(costOf(id, 21, 5, 16));
  });

  test.each([NATIVE, TRANSLATED])("%s: streamText streams the text and ends with the usage it is charged", async (id) => {
    fake.script({ text: "Streaming from the fake", usage: { input: 12, output: 4 } });
    const { account, model } = await modelFor(id);
    const result = streamText({ model, prompt: "Stream something" });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe("Streaming from the fake");
    const usage = await result.usage;
    expect([usage.inputTokens, usage.outputTokens]).toEqual([12, 4]);
    expect(await lastCost(account.id)).toBe(costOf(id, 12, 4));
  });
});
