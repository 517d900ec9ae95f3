// What a client that leaves mid-stream costs, under each STREAM_DISCONNECT_POLICY (DESIGN.md,
// Providers): by default the spec's release; with `charge` the provider's stream is read to
// its end and its reported usage charged, so output cannot be taken for free.
import { afterAll, expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());
const DEFAULT_COST = requestCost(11, 7, FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!);

/** Starts a stream, reads its first chunk, leaves, then lets the provider finish. */
async function leaveMidStream(gateway: TestGateway) {
  let finish!: () => void;
  fake.behave({ chunks: 3, holdUntil: new Promise<void>((resolve) => (finish = resolve)) });
  const { secret, account } = await fundedKey(gateway.store, "1");
  const res = await postChat(gateway.url, secret, hello("gpt-4.1-nano", { stream: true }));
  const reader = res.body!.getReader();
  await reader.read();
  await reader.cancel();
  finish();
  await waitFor(async () => (await gateway.store.getAccount(account.id))!.inflight === 0, "the request to end");
  const [log] = await gateway.store.usageLogPage(account.id, null, 1);
  return { account: (await gateway.store.getAccount(account.id))!, log: log! };
}

describeEachDialect("a client that leaves mid-stream", (dialect) => {
  const gateways: TestGateway[] = [];
  afterAll(async () => {
    for (const g of gateways) await g.stop();
  });
  const gateway = async (policy?: string) => {
    const g = await startGateway(dialect, { ...providerEnv(fake), ...(policy ? { STREAM_DISCONNECT_POLICY: policy } : {}) });
    gateways.push(g);
    return g;
  };

  test("by default is released, and the usage log records the error", async () => {
    const { account, log } = await leaveMidStream(await gateway());
    expect(account.balance).toBe(nanos(1_000_000_000n));
    expect(account.reserved).toBe(nanos(0));
    expect([log.status, log.cost]).toEqual(["error", nanos(0)]);
  });

  test("with STREAM_DISCONNECT_POLICY=charge is charged the usage the provider reports", async () => {
    const { account, log } = await leaveMidStream(await gateway("charge"));
    expect(account.balance).toBe(nanos(1_000_000_000n - DEFAULT_COST));
    expect(account.reserved).toBe(nanos(0));
    expect([log.status, log.promptTokens, log.completionTokens, log.cost]).toEqual(["success", 11, 7, DEFAULT_COST]);
  });
});

test("STREAM_DISCONNECT_POLICY takes release or charge only", async () => {
  const { loadConfig } = await import("../../src/config.ts");
  expect(() => loadConfig({ STREAM_DISCONNECT_POLICY: "bill" })).toThrow("STREAM_DISCONNECT_POLICY");
  expect(loadConfig({}).streamDisconnectPolicy).toBe("release");
});
