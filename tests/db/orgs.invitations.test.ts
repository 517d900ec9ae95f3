// The invitation limits as the store counts them: per person and per organization, in a rolling
// hour and day, a refusal sending and counting nothing, on both databases.
import { beforeAll, expect, test } from "bun:test";
import { invitationLimits } from "../../src/core/orgs/invitation-limits.ts";
import type { OrgActor } from "../../src/core/orgs/store.ts";
import type { Store } from "../../src/core/ports.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";

const NOW = Date.UTC(2026, 5, 1, 12);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describeEachDialect("the invitation limits", (dialect) => {
  const opened = useStore(dialect);
  let store: Store;
  beforeAll(() => {
    store = opened().store;
  });

  const setUp = async () => {
    const owner = (await store.createAccount({ email: `owner-${crypto.randomUUID()}@example.test`, passwordHash: null, now: NOW }))!;
    const actor: OrgActor = { userId: owner.id, label: owner.email, ip: null };
    const org = await store.createOrg({ name: "Acme", owner: owner.id, actor, now: NOW });
    const invite = (at: number, limits = invitationLimits(org.id, owner.id), who = actor) => store.invite({
      orgId: org.id, email: `${crypto.randomUUID()}@example.test`, role: "member", tokenHash: crypto.randomUUID(),
      expiresAt: at + HOUR, mail: { subject: "s", text: "t" }, limits, actor: who, now: at,
    });
    return { org, invite };
  };

  test("25 an hour: the 26th is refused until the first leaves the hour, and a refusal counts nothing", async () => {
    const { invite } = await setUp();
    for (let i = 0; i < 25; i++) expect(await invite(NOW + i * MINUTE)).toHaveProperty("id");
    const refused = await invite(NOW + 30 * MINUTE);
    expect(refused).toEqual({ limited: expect.objectContaining({ per: "person", limit: 25, windowMs: HOUR }), retryAfterSeconds: 30 * 60 });
    expect(await invite(NOW + 59 * MINUTE)).toHaveProperty("limited");
    // The first send left the hour: one fits, and only one.
    expect(await invite(NOW + 60 * MINUTE)).toHaveProperty("id");
    expect(await invite(NOW + 60 * MINUTE)).toEqual({ limited: expect.objectContaining({ windowMs: HOUR }), retryAfterSeconds: 60 });
  });

  test("100 a day: spread over hours, the 101st waits for the day's first to leave it", async () => {
    const { invite } = await setUp();
    for (let hour = 0; hour < 4; hour++) {
      for (let i = 0; i < 25; i++) expect(await invite(NOW + hour * HOUR + i * MINUTE)).toHaveProperty("id");
    }
    const refused = await invite(NOW + 5 * HOUR);
    expect(refused).toEqual({ limited: expect.objectContaining({ limit: 100, windowMs: 24 * HOUR }), retryAfterSeconds: 19 * 3600 });
    expect(await invite(NOW + 24 * HOUR)).toHaveProperty("id");
  });

  test("the operator (no person) is not counted, nor limited", async () => {
    const { org, invite } = await setUp();
    const operator = { userId: null, label: "operator", ip: null };
    expect(invitationLimits(org.id, null)).toEqual([]);
    for (let i = 0; i < 30; i++) expect(await invite(NOW, invitationLimits(org.id, null), operator)).toHaveProperty("id");
  });
});
