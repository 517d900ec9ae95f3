// A Messages stream whose client leaves follows chat's STREAM_DISCONNECT_POLICY: released by
// default (messages.error.test.ts), and with `charge` read to its end and charged the usage the
// provider reports, native or translated.
import { afterAll, expect, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED, messagesEnv, postMessages } from "../support/messages.ts";
import { costOf } from "../support/responses.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

describeEachDialect("a Messages client that leaves mid-stream under STREAM_DISCONNECT_POLICY=charge", (dialect) => {
  const gateway = useGateway(dialect, { ...messagesEnv(fake), STREAM_DISCONNECT_POLICY: "charge" });

  test.each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])("%s: is charged the usage the provider reports once its stream ends", async (model) => {
    let finish!: () => void;
    fake.script({ text: "all of it", usage: { input: 14, output: 6, cached: 4 }, holdUntil: new Promise<void>((resolve) => (finish = resolve)) });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const res = await postMessages(gateway().url, secret, { model, max_tokens: 64, messages: [{ role: "user", content: "hi" }], stream: true });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    finish();
    const store = gateway().store;
    await waitFor(async () => (await store.getAccount(account.id))!.inflight === 0, "the stream to be read to its end");
    const [log] = await store.usageLogPage(account.id, null, 1);
    expect([log!.status, log!.promptTokens, log!.completionTokens, log!.cost]).toEqual(["success", 14, 6, costOf(model, 14, 6, 4)] as never);
    expect((await store.getAccount(account.id))!.balance).toBe((1_000_000_000n - costOf(model, 14, 6, 4)) as never);
  });
});
