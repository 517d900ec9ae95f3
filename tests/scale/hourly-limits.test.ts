// Three `gateway serve` processes on one Postgres database: an hourly spend limit holds against
// concurrent large requests however they spread over the instances, because each admission
// counts the open reservations under the account row's lock.
import { afterAll, afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { postChat } from "../support/chat.ts";
import { describeOnPostgres } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { expectHourlyLimitHolds, HOURLY_LIMIT, largeRequest } from "../support/hourly-burst.ts";
import { useInstances } from "../support/instances.ts";

// Processes start in about a second each; a loaded machine needs room beyond bun's 5 s default.
setDefaultTimeout(30_000);
const fake = startFakeUpstream();
afterAll(() => fake.stop());
afterEach(() => fake.behave({}));

describeOnPostgres("three instances, concurrent large requests at a small hourly spend limit", () => {
  const cluster = useInstances("postgres", 3, { ...providerEnv(fake), MAX_CONCURRENT_REQUESTS: "1000" });

  // Each burst starts its round-robin at another instance, so that the admitted requests land on a different mix.
  test.each([0, 1, 2])("a key's hourly USD limit is never passed, the burst starting at instance %i", async (offset) => {
    const { instances, books } = cluster();
    const { secret, account } = await fundedKey(books.store, "10", { usdPerHour: HOURLY_LIMIT });
    await expectHourlyLimitHolds(fake, books.store, account.id, "API key hourly spend limit", (i) =>
      postChat(instances.at(i + offset).url, secret, largeRequest(i)));
  });

  test("the account's hourly spend safety limit is never passed either", async () => {
    const { instances, books } = cluster();
    const { secret, account } = await fundedKey(books.store, "10");
    expect(await books.store.updateAccount(account.id, { spendLimit: HOURLY_LIMIT })).not.toBeNull();
    await expectHourlyLimitHolds(fake, books.store, account.id, "Hourly spend safety limit", (i) =>
      postChat(instances.at(i).url, secret, largeRequest(i)));
  });
});
