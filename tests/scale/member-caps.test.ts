// Three `gateway serve` processes on one Postgres database: an organization member's daily cap
// holds against concurrent large requests spread over the instances, because each admission
// counts what the member's keys hold and settled today under the organization's row lock.
import { afterAll, afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { generateKeySecret, hashKey, keyPrefix } from "../../src/core/keys/secret.ts";
import { nanos, type Nanos } from "../../src/core/money.ts";
import type { Store } from "../../src/core/ports.ts";
import { postChat } from "../support/chat.ts";
import { expectBooksClosed } from "../support/books.ts";
import { describeOnPostgres } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { ceiling, heldBurst, largeRequest } from "../support/hourly-burst.ts";
import { useInstances } from "../support/instances.ts";

setDefaultTimeout(30_000);
const fake = startFakeUpstream();
afterAll(() => fake.stop());
afterEach(() => fake.behave({}));

const OPERATOR = { userId: null, label: "test", ip: null };
/** Room for two ceilings and half of a third. */
const CAP = nanos(2n * ceiling + ceiling / 2n);

/** An organization with $10, a member capped at CAP a day, and that member's key. */
async function cappedMember(store: Store): Promise<{ orgId: string; secret: string }> {
  const now = Date.now();
  const person = async (label: string) => (await store.createAccount({ email: `${label}-${crypto.randomUUID()}@example.test`, passwordHash: null, now }))!;
  const owner = await person("owner");
  const member = await person("member");
  const org = await store.createOrg({ name: "Capped", owner: owner.id, actor: OPERATOR, now });
  await store.addCredit({ accountId: org.id, amount: nanos(10_000_000_000n), kind: "grant", now });
  await store.invite({ orgId: org.id, email: member.email, role: "member", tokenHash: `t-${org.id}`, expiresAt: now + 60_000, mail: { subject: "s", text: "t" }, limits: [], actor: OPERATOR, now });
  expect(await store.acceptInvitation({ tokenHash: `t-${org.id}`, userId: member.id, email: member.email, ip: null, now })).toHaveProperty("ok");
  const changed = await store.changeMember({ orgId: org.id, actor: OPERATOR, userId: member.id, spendCapPerDay: CAP as Nanos, decide: () => "ok", now });
  expect(changed).toHaveProperty("ok");
  const secret = generateKeySecret();
  await store.createKey({
    accountId: org.id, name: "member's", prefix: keyPrefix(secret), hash: hashKey(secret), origin: "cli", expiresAt: null,
    creditLimit: null, usdPerHour: null, requestsPerHour: null, ownerId: member.id, now,
  });
  return { orgId: org.id, secret };
}

describeOnPostgres("three instances, concurrent large requests by a member with a daily cap", () => {
  const cluster = useInstances("postgres", 3, { ...providerEnv(fake), MAX_CONCURRENT_REQUESTS: "1000" });

  test("the cap admits exactly what fits, refuses the rest with a 402 naming it, and nothing more once spent", async () => {
    const { instances, books } = cluster();
    const { orgId, secret } = await cappedMember(books.store);
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
