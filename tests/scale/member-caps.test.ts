// Three `gateway serve` processes on one Postgres database: an organization member's daily cap
// holds against concurrent large requests spread over the instances, because each admission
// counts what the member's keys hold and settled today under the organization's row lock.
import { afterAll, afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { nanos } from "../../src/core/money.ts";
import { postChat } from "../support/chat.ts";
import { expectBooksClosed } from "../support/books.ts";
import { describeOnPostgres } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { ceiling, heldBurst, largeRequest } from "../support/hourly-burst.ts";
import { useInstances } from "../support/instances.ts";
import { cappedMember } from "../support/member-cap.ts";

setDefaultTimeout(30_000);
const fake = startFakeUpstream();
afterAll(() => fake.stop());
afterEach(() => fake.behave({}));

/** Room for two ceilings and half of a third. */
const CAP = nanos(2n * ceiling + ceiling / 2n);

describeOnPostgres("three instances, concurrent large requests by a member with a daily cap", () => {
  const cluster = useInstances("postgres", 3, { ...providerEnv(fake), MAX_CONCURRENT_REQUESTS: "1000" });

  test("the cap admits exactly what fits, refuses the rest with a 402 naming it, and nothing more once spent", async () => {
    const { instances, books } = cluster();
    const { orgId, secret } = await cappedMember(books.store, CAP);
    const first = await heldBurst(fake, 12, (i) => postChat(instances.at(i).url, secret, largeRequest(i)));
    expect(first.forwarded).toBe(2);
    for (const [i, status] of first.statuses.entries()) {
      if (status === 200) continue;
      expect(status).toBe(402);
      expect(JSON.parse(first.bodies[i] as string).error.message).toContain("Member daily spend cap exceeded");
    }
    const second = await heldBurst(fake, 6, (i) => postChat(instances.at(i + 1).url, secret, largeRequest(i)));
    expect(second.forwarded).toBe(0);
    const audit = await expectBooksClosed(books.store, orgId);
    expect(audit.usageCost).toBeLessThanOrEqual(CAP);
  });
});
