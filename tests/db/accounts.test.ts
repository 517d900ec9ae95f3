import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { nanos } from "../../src/core/money.ts";
import type { FreeCreditOffer, NewKey } from "../../src/core/store.ts";
import type { Store } from "../../src/core/ports.ts";
import type { Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { first, int } from "../../src/db/sql.ts";
import { createStore } from "../../src/db/store/index.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { insertUsageLog } from "../support/usage-logs.ts";

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
const NOW = Date.UTC(2026, 5, 1, 12);
const FIVE_USD = nanos(5_000_000_000n);

let counter = 0;
const uniqueEmail = (label: string) => `${label}-${++counter}@example.com`;

describeEachDialect("the account store", (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let store: Store;

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    db = openTestDatabase(testDb.url);
    await migrate(db);
    store = createStore(db);
  });
  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  const offer = (identity: string, ip: string, perIpPerDay = 3, now = NOW): FreeCreditOffer => ({
    amount: FIVE_USD, identity, emailSkeleton: `key:${identity}`, ipScope: `free-credits:ip:${ip}`, perIpPerDay, dayStart: now - (now % DAY),
  });
  /** Signs up and, when `freeCredits` is offered, verifies the e-mail at once, which is when the credits are granted. */
  const signUp = async (email: string, freeCredits: FreeCreditOffer | null, now = NOW) => {
    const ip = "198.51.100.250";
    const tokenHash = `verify-${email}`;
    const verification = { tokenHash, expiresAt: now + DAY, mail: { subject: "Confirm", text: "link" } };
    const account = await store.signUp({ email, emailSkeleton: `key:${email}`, passwordHash: "hash", client: { ip, userAgent: null }, verification, now });
    if (!account || !freeCredits) return account && { account, freeCreditsGranted: false };
    return store.verifyEmail({ tokenHash, offer: () => freeCredits, ip, now });
  };
  const newAccount = async () => (await signUp(uniqueEmail("owner"), null))!.account;

  describe("sign-up and verification", () => {
    test("grants the free credits at verification, as one ledger grant in its transaction", async () => {
      const email = uniqueEmail("new");
      const result = await signUp(email, offer(email, "198.51.100.1"));
      expect(result?.freeCreditsGranted).toBe(true);
      expect(result?.account).toMatchObject({ email, balance: FIVE_USD, alertThreshold: null, spendLimit: null, createdAt: NOW });
      expect(await store.ledgerSum(result!.account.id)).toBe(FIVE_USD);
    });

    test("grants them once per identity, whatever the e-mail spelling", async () => {
      const identity = `${uniqueEmail("twin")}`;
      expect((await signUp(uniqueEmail("a"), offer(identity, "198.51.100.2")))?.freeCreditsGranted).toBe(true);
      const second = await signUp(uniqueEmail("b"), offer(identity, "198.51.100.3"));
      expect(second?.freeCreditsGranted).toBe(false);
      expect(second?.account.balance).toBe(nanos(0));
      expect(await store.ledgerSum(second!.account.id)).toBe(nanos(0));
    });

    test("grants them to at most perIpPerDay sign-ups per IP and UTC day, and again the next day", async () => {
      const ip = "198.51.100.4";
      const granted = [];
      for (let i = 0; i < 3; i++) granted.push((await signUp(uniqueEmail("ip"), offer(uniqueEmail("id"), ip, 2)))?.freeCreditsGranted);
      expect(granted).toEqual([true, true, false]);
      const otherIp = await signUp(uniqueEmail("ip"), offer(uniqueEmail("id"), "198.51.100.5", 2));
      expect(otherIp?.freeCreditsGranted).toBe(true);
      const tomorrow = NOW - (NOW % DAY) + DAY;
      const nextDay = await signUp(uniqueEmail("ip"), offer(uniqueEmail("id"), ip, 2, tomorrow), tomorrow);
      expect(nextDay?.freeCreditsGranted).toBe(true);
    });

    test("a refused IP does not use up the identity's claim", async () => {
      const ip = "198.51.100.6";
      const identity = uniqueEmail("later");
      expect((await signUp(uniqueEmail("x"), offer(identity, ip, 0)))?.freeCreditsGranted).toBe(false);
      expect((await signUp(uniqueEmail("y"), offer(identity, "198.51.100.7")))?.freeCreditsGranted).toBe(true);
    });

    test("concurrent sign-ups from one IP never exceed its daily cap", async () => {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => signUp(uniqueEmail("race"), offer(uniqueEmail("race-id"), "198.51.100.8", 2))),
      );
      expect(results.filter((r) => r?.freeCreditsGranted)).toHaveLength(2);
    });

    test("a taken e-mail answers null and grants nothing", async () => {
      const email = uniqueEmail("taken");
      await signUp(email, null);
      expect(await signUp(email, offer(uniqueEmail("fresh"), "198.51.100.9"))).toBeNull();
      expect((await signUp(uniqueEmail("after"), offer(uniqueEmail("fresh2"), "198.51.100.9", 1)))?.freeCreditsGranted).toBe(true);
    });
  });

  describe("users", () => {
    test("findCredentials returns the account and its password hash", async () => {
      const email = uniqueEmail("creds");
      const { account } = (await signUp(email, null))!;
      expect(await store.findCredentials(email)).toEqual({ account, passwordHash: "hash" });
      expect(await store.findCredentials(uniqueEmail("nobody"))).toBeNull();
    });

    test("updateAccount changes only the given fields, clears with null, and re-arms the alert", async () => {
      const account = await newAccount();
      await db.run(first("UPDATE accounts SET alert_armed = 0 WHERE id = ? RETURNING id", account.id));
      const set = await store.updateAccount(account.id, { alertThreshold: nanos(10n), spendLimit: nanos(20n), bannedAt: 5 });
      expect(set).toEqual({ ...account, alertThreshold: nanos(10n), spendLimit: nanos(20n), bannedAt: 5 });
      const armed = await db.run(first("SELECT alert_armed FROM accounts WHERE id = ?", account.id));
      expect(int(armed?.alert_armed)).toBe(1);
      const cleared = await store.updateAccount(account.id, { spendLimit: null, bannedAt: null, deletedAt: 9 });
      expect(cleared).toEqual({ ...account, alertThreshold: nanos(10n), deletedAt: 9 });
      expect(await store.updateAccount(account.id, {})).toEqual(cleared);
      expect(await store.updateAccount("no-such-account", { bannedAt: 1 })).toBeNull();
    });

    test("listAccounts lists every account oldest first", async () => {
      const ids = (await store.listAccounts()).map((a) => a.createdAt);
      expect(ids.length).toBeGreaterThan(5);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    });
  });

  describe("sessions", () => {
    test("a session is found by its hash until it expires, and not after deletion", async () => {
      const account = await newAccount();
      await store.createSession({ tokenHash: "h-live", accountId: account.id, now: NOW, expiresAt: NOW + HOUR });
      expect(await store.findSession("h-live", NOW + HOUR - 1)).toEqual({ accountId: account.id, account, expiresAt: NOW + HOUR, lastSeenAt: NOW });
      expect(await store.findSession("h-live", NOW + HOUR)).toBeNull();
      await store.deleteSession("h-live");
      expect(await store.findSession("h-live", NOW)).toBeNull();
      expect(await store.findSession("h-unknown", NOW)).toBeNull();
    });

    test("a session whose account row is gone has a null account", async () => {
      await store.createSession({ tokenHash: "h-orphan", accountId: "gone", now: NOW, expiresAt: NOW + HOUR });
      expect(await store.findSession("h-orphan", NOW)).toEqual({ accountId: "gone", account: null, expiresAt: NOW + HOUR, lastSeenAt: NOW });
    });

    test("starting a session clears the account's expired ones", async () => {
      const account = await newAccount();
      await store.createSession({ tokenHash: "h-old", accountId: account.id, now: NOW - 2 * HOUR, expiresAt: NOW - HOUR });
      await store.createSession({ tokenHash: "h-new", accountId: account.id, now: NOW, expiresAt: NOW + HOUR });
      const left = await db.run(first("SELECT COUNT(*) AS n FROM sessions WHERE account_id = ?", account.id));
      expect(int(left?.n)).toBe(1);
    });
  });

  describe("key management", () => {
    let seq = 0;
    const newKey = (accountId: string, overrides: Partial<NewKey> = {}): NewKey => ({
      accountId, name: "k", prefix: "gw-prefix0", hash: `hash-${dialect}-${++seq}`, origin: "dashboard",
      expiresAt: null, creditLimit: null, usdPerHour: null, requestsPerHour: null, now: NOW, ...overrides,
    });
    const LIMIT = { count: 5, windowMs: HOUR };

    test("concurrent generation stops at the limit, and says when a place frees up", async () => {
      const account = await newAccount();
      const results = await Promise.all(
        Array.from({ length: 8 }, () => store.createKeyWithinLimit(newKey(account.id), LIMIT)),
      );
      expect(results.filter((r) => "created" in r)).toHaveLength(5);
      expect(results.filter((r) => "retryAfterSeconds" in r)).toHaveLength(3);
      expect(await store.createKeyWithinLimit(newKey(account.id, { now: NOW + HOUR - 30_000 }), LIMIT)).toEqual({ retryAfterSeconds: 30 });
      expect("created" in (await store.createKeyWithinLimit(newKey(account.id, { now: NOW + HOUR + 10 }), LIMIT))).toBe(true);
    });

    test("keys of other origins do not count toward the dashboard limit", async () => {
      const account = await newAccount();
      for (let i = 0; i < 5; i++) await store.createKey(newKey(account.id, { origin: i % 2 ? "cli" : "rotation" }));
      expect("created" in (await store.createKeyWithinLimit(newKey(account.id), LIMIT))).toBe(true);
    });

    test("listKeys shows the account's keys newest first, and only its own", async () => {
      const account = await newAccount();
      const other = await newAccount();
      const older = await store.createKey(newKey(account.id, { name: "older" }));
      const newer = await store.createKey(newKey(account.id, { name: "newer", now: NOW + 1 }));
      await store.createKey(newKey(other.id));
      expect(await store.listKeys(account.id)).toEqual([newer, older]);
      expect(await store.findKey(older.id)).toEqual(older);
      expect(await store.findKey("not-a-uuid")).toBeNull();
    });

    test("updateKey changes present fields, clears with null, and only for the owner", async () => {
      const account = await newAccount();
      const key = await store.createKey(newKey(account.id, { creditLimit: nanos(5n), usdPerHour: nanos(6n), requestsPerHour: 7 }));
      const updated = await store.updateKey(account.id, key.id, { name: "renamed", creditLimit: null, expiresAt: NOW + DAY });
      expect(updated).toEqual({ ...key, name: "renamed", creditLimit: null, expiresAt: NOW + DAY });
      expect(await store.updateKey(account.id, key.id, {})).toEqual(updated);
      expect(await store.updateKey((await newAccount()).id, key.id, { name: "stolen" })).toBeNull();
      expect(await store.updateKey(account.id, "missing", { name: "x" })).toBeNull();
    });

    test("revokeKey revokes an owned key once", async () => {
      const account = await newAccount();
      const key = await store.createKey(newKey(account.id));
      expect(await store.revokeKey((await newAccount()).id, key.id, NOW)).toBeNull();
      expect(await store.revokeKey(account.id, key.id, NOW + 5)).toEqual({ ...key, revokedAt: NOW + 5 });
      expect(await store.revokeKey(account.id, key.id, NOW + 6)).toBeNull();
    });

    test("rotateKey revokes the key and issues a replacement with its name, expiry and limits", async () => {
      const account = await newAccount();
      const key = await store.createKey(newKey(account.id, {
        name: "prod", expiresAt: NOW + DAY, creditLimit: nanos(1n), usdPerHour: nanos(2n), requestsPerHour: 3,
      }));
      const outcome = await store.rotateKey(account.id, key.id, { prefix: "gw-rotated", hash: `hash-${dialect}-rotated` }, NOW + 10);
      if (!("rotated" in outcome)) throw new Error(`expected a rotation, got ${JSON.stringify(outcome)}`);
      expect(outcome.rotated).toEqual({
        ...key, id: outcome.rotated.id, prefix: "gw-rotated", createdAt: NOW + 10,
      });
      expect(outcome.rotated.id).not.toBe(key.id);
      expect((await store.findKey(key.id))?.revokedAt).toBe(NOW + 10);
      const origin = await db.run(first("SELECT origin FROM api_keys WHERE id = ?", outcome.rotated.id));
      expect(origin?.origin).toBe("rotation");
      expect(await store.rotateKey(account.id, key.id, { prefix: "p", hash: `hash-${dialect}-again` }, NOW + 11)).toEqual({ refused: "not_found" });
    });

    test("rotateKey refuses an expired key, another account's key and an unknown one", async () => {
      const account = await newAccount();
      const expired = await store.createKey(newKey(account.id, { expiresAt: NOW - 1 }));
      const replacement = { prefix: "p", hash: `hash-${dialect}-never` };
      expect(await store.rotateKey(account.id, expired.id, replacement, NOW)).toEqual({ refused: "expired" });
      expect((await store.findKey(expired.id))?.revokedAt).toBeNull();
      const live = await store.createKey(newKey(account.id));
      expect(await store.rotateKey((await newAccount()).id, live.id, replacement, NOW)).toEqual({ refused: "not_found" });
      expect(await store.rotateKey(account.id, "missing", replacement, NOW)).toEqual({ refused: "not_found" });
    });

    test("of two concurrent rotations of one key, exactly one succeeds", async () => {
      const account = await newAccount();
      const key = await store.createKey(newKey(account.id));
      const outcomes = await Promise.all(
        [1, 2].map((n) => store.rotateKey(account.id, key.id, { prefix: "p", hash: `hash-${dialect}-race-${n}` }, NOW)),
      );
      expect(outcomes.filter((o) => "rotated" in o)).toHaveLength(1);
      expect(outcomes.filter((o) => "refused" in o)).toEqual([{ refused: "not_found" }]);
      expect(await store.listKeys(account.id)).toHaveLength(2);
    });
  });

  describe("usage export", () => {
    test("pages walk the account's logs newest first, ties on time broken by id, others' logs left out", async () => {
      const account = await newAccount();
      const other = await newAccount();
      const ids = ["b", "a", "c", "d", "e"].map((s) => `0000000${s}`);
      const times = [NOW, NOW, NOW + 1, NOW - 5, NOW];
      for (const [i, id] of ids.entries()) await insertUsageLog(db, { id, accountId: account.id, createdAt: times[i]! });
      await insertUsageLog(db, { accountId: other.id, createdAt: NOW + 100 });
      const firstPage = await store.usageLogPage(account.id, null, 2);
      expect(firstPage.map((l) => l.id)).toEqual(["0000000c", "0000000e"]);
      const last = firstPage.at(-1)!;
      const rest = await store.usageLogPage(account.id, { createdAt: last.createdAt, id: last.id }, 10);
      expect(rest.map((l) => l.id)).toEqual(["0000000b", "0000000a", "0000000d"]);
    });

    test("rows carry every exported column", async () => {
      const account = await newAccount();
      const id = await insertUsageLog(db, {
        accountId: account.id, createdAt: NOW, model: "gpt-4o", requestedModel: "gpt-4o", promptTokens: 11,
        completionTokens: 22, costNanos: 123_456_789_012n, latencyMs: 987, status: "error",
      });
      expect(await store.usageLogPage(account.id, null, 10)).toEqual([{
        id, createdAt: NOW, model: "gpt-4o", requestedModel: "gpt-4o", promptTokens: 11, completionTokens: 22,
        cost: nanos(123_456_789_012n), latencyMs: 987, status: "error", cachedTokens: 0, saved: nanos(0),
        keyName: null, memberEmail: null,
      }]);
    });
  });
});
