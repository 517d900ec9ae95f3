import { afterAll, expect, test } from "bun:test";
import { rows } from "../../src/db/sql.ts";
import { fundedKey } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

describeEachDialect("chat: reservation leases", (dialect) => {
  // The shortest lease the configuration allows, swept often: a live request must outlast it.
  const gateway = useGateway(dialect, { ...providerEnv(fake), RESERVATION_LEASE_MS: "1000", SWEEP_INTERVAL_MS: "100" });

  test("a request that lives past its lease keeps renewing it and is never swept", async () => {
    fake.behave({ chunks: 3, stallAfter: 1 });
    const { secret, account } = await fundedKey(gateway().store, "1");
    const res = await postChat(gateway().url, secret, hello("gpt-4.1-nano", { stream: true }));
    const reader = res.body!.getReader();
    await reader.read();
    const lease = async () =>
      Number((await gateway().db.run(rows<{ lease: bigint }>("SELECT lease_expires_at AS lease FROM reservations WHERE account_id = ?", account.id)))[0]?.lease ?? 0);
    const first = await lease();
    expect(first).toBeGreaterThan(0);
    // Pushed more than a whole lease forward: the request has outlived its first lease while the sweeper ran.
    await waitFor(async () => (await lease()) > first + 1300, "the lease to be renewed past its first expiry");
    expect((await gateway().store.getAccount(account.id))!.inflight).toBe(1);
    await reader.cancel();
    await waitFor(async () => (await gateway().store.getAccount(account.id))!.inflight === 0, "the release");
    const [log] = await gateway().store.usageLogPage(account.id, null, 5);
    expect(log?.status).toBe("error");
  });

  test("a reservation left by a dead process is released by the sweeper and logged as an error", async () => {
    const { account, key } = await fundedKey(gateway().store, "1");
    const reserved = await gateway().store.reserve({
      account, key, model: "gpt-4.1-nano", requestedModel: "gpt-4.1-nano", amount: 5_000n as never,
      policy: { maxConcurrentRequests: 3, dashboardUrl: "x" }, leaseMs: 1000, now: Date.now() - 5_000,
    });
    expect(reserved.ok).toBe(true);
    await waitFor(async () => (await gateway().store.getAccount(account.id))!.inflight === 0, "the sweep");
    const after = (await gateway().store.getAccount(account.id))!;
    expect([after.balance, after.reserved]).toEqual([1_000_000_000n, 0n] as never);
    const [log] = await gateway().store.usageLogPage(account.id, null, 5);
    expect(log?.status).toBe("error");
  });
});
