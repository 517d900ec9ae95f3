// An organization member with a daily spend cap, and that member's key: made through the store.
import { expect } from "bun:test";
import { generateKeySecret, hashKey, keyPrefix } from "../../src/core/keys/secret.ts";
import { nanos, type Nanos } from "../../src/core/money.ts";
import type { Store } from "../../src/core/ports.ts";

const OPERATOR = { userId: null, label: "test", ip: null };

/** An organization with $10, a member capped at `cap` a day, and that member's key. */
export async function cappedMember(store: Store, cap: Nanos): Promise<{ orgId: string; secret: string }> {
  const now = Date.now();
  const person = async (label: string) => (await store.createAccount({ email: `${label}-${crypto.randomUUID()}@example.test`, passwordHash: null, now }))!;
  const owner = await person("owner");
  const member = await person("member");
  const org = await store.createOrg({ name: `Capped ${crypto.randomUUID()}`, owner: owner.id, actor: OPERATOR, now });
  await store.addCredit({ accountId: org.id, amount: nanos(10_000_000_000n), kind: "grant", now });
  await store.invite({ orgId: org.id, email: member.email, role: "member", tokenHash: `t-${org.id}`, expiresAt: now + 60_000, mail: { subject: "s", text: "t" }, limits: [], actor: OPERATOR, now });
  expect(await store.acceptInvitation({ tokenHash: `t-${org.id}`, userId: member.id, email: member.email, ip: null, now })).toHaveProperty("ok");
  const changed = await store.changeMember({ orgId: org.id, actor: OPERATOR, userId: member.id, spendCapPerDay: cap, decide: () => "ok", now });
  expect(changed).toHaveProperty("ok");
  const secret = generateKeySecret();
  await store.createKey({
    accountId: org.id, name: "member's", prefix: keyPrefix(secret), hash: hashKey(secret), origin: "cli", expiresAt: null,
    creditLimit: null, usdPerHour: null, requestsPerHour: null, ownerId: member.id, now,
  });
  return { orgId: org.id, secret };
}
