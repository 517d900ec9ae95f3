// A Messages or Responses stream whose client leaves follows chat's STREAM_DISCONNECT_POLICY:
// released by default (messages.error.test.ts, responses.error.test.ts), and with `charge` read
// to its end and charged the usage the provider reports, native or translated.
import { afterAll, expect, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED, messagesEnv, postMessages } from "../support/messages.ts";
import { costOf, NATIVE, postResponses, responsesEnv, TRANSLATED } from "../support/responses.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

const doors = [
  {
    name: "Messages",
    env: messagesEnv(fake),
    models: [ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED],
    cached: 4,
    post: (url: string, secret: string, model: string) =>
      postMessages(url, secret, { model, max_tokens: 64, messages: [{ role: "user", content: "hi" }], stream: true }),
  },
  {
    name: "Responses",
    env: responsesEnv(fake),
    models: [NATIVE, TRANSLATED],
    cached: 0,
    post: (url: string, secret: string, model: string) => postResponses(url, secret, { model, input: "hi", stream: true }),
  },
];

for (const door of doors) {
  describeEachDialect(`a ${door.name} client that leaves mid-stream under STREAM_DISCONNECT_POLICY=charge`, (dialect) => {
    const gateway = useGateway(dialect, { ...door.env, STREAM_DISCONNECT_POLICY: "charge" });

    test.each(door.models)("%s: is charged the usage the provider reports once its stream ends", async (model) => {
      let finish!: () => void;
      const usage = { input: 14, output: 6, ...(door.cached ? { cached: door.cached } : {}) };
      fake.script({ text: "all of it", usage, holdUntil: new Promise<void>((resolve) => (finish = resolve)) });
      const { secret, account } = await fundedKey(gateway().store, "1");
      const res = await door.post(gateway().url, secret, model);
      const reader = res.body!.getReader();
      await reader.read();
      await reader.cancel();
      finish();
      const store = gateway().store;
      await waitFor(async () => (await store.getAccount(account.id))!.inflight === 0, "the stream to be read to its end");
      const cost = costOf(model, 14, 6, door.cached);
      const [log] = await store.usageLogPage(account.id, null, 1);
      expect([log!.status, log!.promptTokens, log!.completionTokens, log!.cost]).toEqual(["success", 14, 6, cost] as never);
      expect((await store.getAccount(account.id))!.balance).toBe((1_000_000_000n - cost) as never);
    });
  });
}
