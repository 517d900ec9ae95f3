// A Responses stream whose client leaves follows chat's STREAM_DISCONNECT_POLICY: released by
// default (responses.error.test.ts), and with `charge` read to its end and charged the usage
// the provider reports, native or translated.
import { afterAll, expect, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { costOf, NATIVE, postResponses, responsesEnv, TRANSLATED } from "../support/responses.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

describeEachDialect("a Responses client that leaves mid-stream under STREAM_DISCONNECT_POLICY=charge", (dialect) => {
  const gateway = useGateway(dialect, { ...responsesEnv(fake), STREAM_DISCONNECT_POLICY: "charge" });

  test.each([NATIVE, TRANSLATED])("%s: is charged the usage the provider reports once its stream ends", async (model) => {
    let finish!: () => void;
    fake.script({ text: "all of it", usage: { input: 14, output: 6 }, holdUntil: new Promise<void>((resolve) => (finish = resolve)) });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const res = await postResponses(gateway().url, secret, { model, input: "hi", stream: true });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    finish();
    const store = gateway().store;
    await waitFor(async () => (await store.getAccount(account.id))!.inflight === 0, "the stream to be read to its end");
    const [log] = await store.usageLogPage(account.id, null, 1);
    expect([log!.status, log!.promptTokens, log!.completionTokens, log!.cost]).toEqual(["success", 14, 6, costOf(model, 14, 6)] as never);
    expect((await store.getAccount(account.id))!.balance).toBe((1_000_000_000n - costOf(model, 14, 6)) as never);
  });
});
