import { afterAll, afterEach, expect, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { expectHourlyLimitHolds, HOURLY_LIMIT, largeRequest } from "../support/hourly-burst.ts";
import { useGateway } from "../support/server.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());
afterEach(() => fake.behave({}));

// Once, three concurrent large requests on a key with a $0.05 hourly limit were charged $1.17:
// open reservations did not count. Now a request is admitted only if the hour's settled spend,
// the open reservations and its own ceiling stay within the limit.
describeEachDialect("chat: concurrent large requests at a small hourly spend limit", (dialect) => {
  // The concurrency cap is lifted so that only the hourly limit stands between requests.
  const gateway = useGateway(dialect, { ...providerEnv(fake), MAX_CONCURRENT_REQUESTS: "1000" });

  test("a key's hourly USD limit admits only the ceilings that fit, and what is charged never passes it", async () => {
    const { secret, account } = await fundedKey(gateway().store, "10", { usdPerHour: HOURLY_LIMIT });
    await expectHourlyLimitHolds(fake, gateway().store, account.id, "API key hourly spend limit", (i) =>
      postChat(gateway().url, secret, largeRequest(i)));
  });

  test("the account's hourly spend safety limit does the same for every key of the account", async () => {
    const { secret, account } = await fundedKey(gateway().store, "10");
    expect(await gateway().store.updateAccount(account.id, { spendLimit: HOURLY_LIMIT })).not.toBeNull();
    await expectHourlyLimitHolds(fake, gateway().store, account.id, "Hourly spend safety limit", (i) =>
      postChat(gateway().url, secret, largeRequest(i)));
  });
});
