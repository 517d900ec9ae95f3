// One account and one free-credit claim per look-alike key (core/accounts/email-skeleton.ts):
// the store refuses a second holder of a key, and the upgrade that adds the keys gives them to
// the rows made before, oldest first.
import { expect, test } from "bun:test";
import { emailSkeleton, freeCreditSkeleton } from "../../src/core/accounts/email-skeleton.ts";
import { nanos } from "../../src/core/money.ts";
import { migrate } from "../../src/db/migrate.ts";
import { MIGRATIONS } from "../../src/db/migrations.gen.ts";
import { exec, rows } from "../../src/db/sql.ts";
import { createStore } from "../../src/db/store/index.ts";
import { EMAIL_SKELETON_MIGRATION } from "../../src/db/store/accounts/email-skeletons.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase } from "../support/databases.ts";

const NOW = Date.UTC(2026, 5, 1, 12);
const DAY = 24 * 60 * 60 * 1000;

describeEachDialect("look-alike keys", (dialect) => {
  test("the upgrade keys existing people and claims oldest first; a later look-alike keeps its address and no key", async () => {
    const testDb = await createTestDatabase(dialect);
    const db = openTestDatabase(testDb.url);
    try {
      const upgrade = MIGRATIONS[dialect].findIndex((m) => m.tag === EMAIL_SKELETON_MIGRATION);
      expect(upgrade).toBeGreaterThan(0);
      await db.run(exec("CREATE TABLE gateway_migrations (tag text PRIMARY KEY, applied_at bigint NOT NULL)"));
      for (const migration of MIGRATIONS[dialect].slice(0, upgrade)) {
        for (const statement of migration.statements) await db.run(exec(statement));
        await db.run(exec("INSERT INTO gateway_migrations (tag, applied_at) VALUES (?, ?)", migration.tag, NOW));
      }
      const person = (id: string, email: string, at: number, kind = "person") =>
        db.run(exec("INSERT INTO accounts (id, email, created_at, kind) VALUES (?, ?, ?, ?)", id, email, at, kind));
      await person("late", "alice+old@example.com", NOW + 2);
      await person("first", "al\u0131ce@example.com", NOW);
      await person("plain", "alice@example.com", NOW + 1);
      await person("bob", "bob@example.com", NOW + 3);
      await person("org", "org-1@organizations.invalid", NOW, "organization");
      const claim = (email: string, at: number) =>
        db.run(exec("INSERT INTO free_credit_claims (email, account_id, created_at) VALUES (?, 'x', ?)", email, at));
      await claim("carol+a@example.com", NOW + 1);
      await claim("carol@example.com", NOW);

      expect(await migrate(db, NOW)).toContain(EMAIL_SKELETON_MIGRATION);
      expect(await db.run(rows("SELECT id, email_skeleton FROM accounts ORDER BY id"))).toEqual([
        { id: "bob", email_skeleton: emailSkeleton("bob@example.com") },
        { id: "first", email_skeleton: emailSkeleton("alice@example.com") },
        { id: "late", email_skeleton: null },
        { id: "org", email_skeleton: null },
        { id: "plain", email_skeleton: null },
      ]);
      expect(await db.run(rows("SELECT email, email_skeleton FROM free_credit_claims ORDER BY email"))).toEqual([
        { email: "carol+a@example.com", email_skeleton: null },
        { email: "carol@example.com", email_skeleton: freeCreditSkeleton("carol@example.com") },
      ]);
    } finally {
      await db.close();
      await testDb.drop();
    }
  });

  test("an account or a claim whose key is held inserts nothing", async () => {
    const testDb = await createTestDatabase(dialect);
    const db = openTestDatabase(testDb.url);
    try {
      await migrate(db);
      const store = createStore(db);
      const verification = (email: string) => ({ tokenHash: `verify-${email}`, expiresAt: NOW + DAY, mail: { subject: "Confirm", text: "link" } });
      const signUp = (email: string) => store.signUp({
        email, emailSkeleton: emailSkeleton(email), passwordHash: "hash", client: { ip: "198.51.100.1", userAgent: null }, verification: verification(email), now: NOW,
      });
      expect(await signUp("dave@example.com")).not.toBeNull();
      expect(await signUp("dave+x@example.com")).toBeNull();
      expect(await store.createAccount({ email: "d\u0251ve@example.com", emailSkeleton: emailSkeleton("d\u0251ve@example.com"), passwordHash: null, now: NOW })).toBeNull();

      const offer = (identity: string) => ({
        amount: nanos(5_000_000_000n), identity, emailSkeleton: freeCreditSkeleton(identity), ipScope: `free-credits:ip:${identity}`, perIpPerDay: 3, dayStart: NOW - (NOW % DAY),
      });
      const legacy = async (id: string, email: string) => {
        await db.run(exec("INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?)", id, email, NOW));
        return (await store.verifyAccount(id, { offer: (a) => offer(a.email), now: NOW, by: "by the operator" }))?.freeCreditsGranted;
      };
      expect(await legacy("eve", "eve@example.com")).toBe(true);
      expect(await legacy("eve-tag", "eve+x@example.com")).toBe(false);
      expect(await legacy("eve-alike", "\u1d07ve@example.com")).toBe(false);
    } finally {
      await db.close();
      await testDb.drop();
    }
  });
});
