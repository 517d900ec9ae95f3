import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import type { Account } from "../../src/core/store.ts";
import type { Store } from "../../src/core/ports.ts";
import type { Database } from "../../src/db/database.ts";
import { exec, first, int, rows } from "../../src/db/sql.ts";
import { queueAccountMail } from "../../src/db/store/alerts.ts";
import { startAlertSender } from "../../src/server/alerts/sender.ts";
import type { Fields, Logger } from "../../src/server/log.ts";
import { MIGRATIONS } from "../../src/db/migrations.gen.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase } from "../support/databases.ts";
import { useStore } from "../support/store.ts";
import { waitFor } from "../support/wait.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;
const NOW = Date.UTC(2026, 10, 21, 12);
let counter = 0;

describeEachDialect("low-balance alerts in the store", (dialect) => {
  const opened = useStore(dialect);
  let db: Database;
  let store: Store;
  beforeAll(() => {
    ({ db, store } = opened());
  });
  // Claims take every due alert in the database; each test starts with none pending.
  beforeEach(async () => {
    await db.run(exec("UPDATE alert_outbox SET sent_at = 0 WHERE sent_at IS NULL"));
  });

  /** An account holding `balance` USD with an alert threshold of `threshold` USD. */
  async function accountWith(balance: string, threshold: string | null): Promise<Account> {
    const account = await store.createAccount({
      email: `low-${++counter}@example.com`, passwordHash: null, initialCredits: { amount: usd(balance), note: "test" }, now: NOW,
    });
    return (await store.updateAccount(account!.id, { alertThreshold: threshold === null ? null : usd(threshold) }))!;
  }
  const move = (account: Account, amount: string, now = NOW) =>
    store.addCredit({ accountId: account.id, amount: usd(amount), kind: amount.startsWith("-") ? "adjustment" : "grant", now });
  const outbox = async (account: Account) =>
    db.run(rows("SELECT email, balance_nanos, threshold_nanos, created_at, attempts, next_attempt_at, sent_at, last_error FROM alert_outbox WHERE account_id = ? ORDER BY created_at", account.id));
  const armed = async (account: Account) =>
    int((await db.run(first("SELECT alert_armed FROM accounts WHERE id = ?", account.id)))?.alert_armed) === 1;

  describe("queued by the ledger", () => {
    test("a debit that takes the balance below the threshold queues one alert and disarms, in its transaction", async () => {
      const account = await accountWith("12", "10");
      await move(account, "-1.5");
      expect(await outbox(account)).toEqual([]);
      await move(account, "-0.500000001", NOW + 1);
      expect(await outbox(account)).toEqual([
        {
          email: account.email, balance_nanos: 9_999_999_999n, threshold_nanos: 10_000_000_000n, created_at: BigInt(NOW + 1),
          attempts: 0n, next_attempt_at: BigInt(NOW + 1), sent_at: null, last_error: null,
        } as never,
      ]);
      expect(await armed(account)).toBe(false);
    });

    test("later debits below the threshold queue nothing more", async () => {
      const account = await accountWith("11", "10");
      await move(account, "-2");
      await move(account, "-2");
      await move(account, "-7");
      expect(await outbox(account)).toHaveLength(1);
    });

    test("re-arms once the balance is back at the threshold, and alerts again on the next crossing", async () => {
      const account = await accountWith("11", "10");
      await move(account, "-2");
      await move(account, "0.5");
      expect(await armed(account)).toBe(false);
      await move(account, "0.5");
      expect(await armed(account)).toBe(true);
      await move(account, "-0.000000001", NOW + 5);
      expect((await outbox(account)).map((a) => a.balance_nanos)).toEqual([9_000_000_000n, 9_999_999_999n] as never);
    });

    test("nothing is queued without a threshold, or when the balance was already below it", async () => {
      const off = await accountWith("11", null);
      await move(off, "-5");
      const below = await accountWith("5", "10");
      await move(below, "-1");
      expect([...(await outbox(off)), ...(await outbox(below))]).toEqual([]);
    });

    test("a replayed ledger entry moves nothing and queues nothing", async () => {
      const account = await accountWith("11", "10");
      const debit = { accountId: account.id, amount: usd("-2"), kind: "adjustment" as const, idempotencyKey: `debit-${counter}`, now: NOW };
      expect(await store.addCredit(debit)).not.toBeNull();
      await move(account, "2");
      expect(await store.addCredit(debit)).toBeNull();
      expect(await outbox(account)).toHaveLength(1);
      expect(await armed(account)).toBe(true);
    });
  });

  describe("the outbox", () => {
    test("claims due alerts once, counting the attempt, and hands them out again only after the claim lapses", async () => {
      const account = await accountWith("11", "10");
      await move(account, "-2", NOW);
      const claimed = await store.claimDueAlerts({ now: NOW, claimUntil: NOW + 1_000, limit: 10, channel: "mail" });
      expect(claimed).toEqual([
        {
          id: expect.any(String), accountId: account.id, email: account.email, kind: "low_balance", balance: usd("9"),
          threshold: usd("10"), subject: null, text: null, createdAt: NOW, attempts: 1,
        },
      ]);
      expect(await store.claimDueAlerts({ now: NOW + 999, claimUntil: NOW + 2_000, limit: 10, channel: "mail" })).toEqual([]);
      expect((await store.claimDueAlerts({ now: NOW + 1_000, claimUntil: NOW + 2_000, limit: 10, channel: "mail" })).map((a) => a.attempts)).toEqual([2]);
    });

    test("a failed alert waits for its retry time; a sent one is never claimed again", async () => {
      const failing = await accountWith("11", "10");
      const sending = await accountWith("11", "10");
      await move(failing, "-2", NOW);
      await move(sending, "-2", NOW + 1);
      const claimed = await store.claimDueAlerts({ now: NOW + 1, claimUntil: NOW + 60_000, limit: 10, channel: "mail" });
      const idOf = (a: Account) => claimed.find((c) => c.accountId === a.id)!.id;
      await store.markAlertFailed(idOf(failing), "connection refused", NOW + 500);
      await store.markAlertSent(idOf(sending), NOW + 2);
      expect((await outbox(failing))[0]).toMatchObject({ last_error: "connection refused", sent_at: null });
      expect(await store.claimDueAlerts({ now: NOW + 499, claimUntil: NOW + 60_000, limit: 10, channel: "mail" })).toEqual([]);
      const retried = await store.claimDueAlerts({ now: NOW + 500, claimUntil: NOW + 60_000, limit: 10, channel: "mail" });
      expect(retried.map((a) => [a.accountId, a.attempts])).toEqual([[failing.id, 2]]);
    });

    test("an account e-mail's text is kept apart until sent, then deleted", async () => {
      const account = await accountWith("11", null);
      await db.transaction(queueAccountMail(account.id, account.email, { subject: "Reset your password", text: "https://x/reset?token=t0k3n" }, NOW));
      const [claimed] = await store.claimDueAlerts({ now: NOW, claimUntil: NOW + 1_000, limit: 10, channel: "mail" });
      expect(claimed).toMatchObject({ accountId: account.id, kind: "account", subject: "Reset your password", text: "https://x/reset?token=t0k3n" });
      expect(await db.run(rows("SELECT body FROM alert_outbox WHERE id = ?", claimed!.id))).toEqual([{ body: null }]);
      await store.markAlertSent(claimed!.id, NOW + 1);
      expect(await db.run(rows("SELECT outbox_id FROM account_mail_texts WHERE outbox_id = ?", claimed!.id))).toEqual([]);
      expect((await outbox(account))[0]).toMatchObject({ sent_at: BigInt(NOW + 1) });
      // Postgres rewrites the table, SQLite truncates its WAL; an e-mail queued since and not yet sent keeps its text.
      await db.transaction(queueAccountMail(account.id, account.email, { subject: "Verify your address", text: "https://x/verify?token=v3r1fy" }, NOW + 2));
      await store.eraseSentAccountMailTexts();
      expect(await db.run(rows("SELECT body FROM account_mail_texts"))).toEqual([{ body: "https://x/verify?token=v3r1fy" }]);
      const [next] = await store.claimDueAlerts({ now: NOW + 2, claimUntil: NOW + 1_000, limit: 10, channel: "mail" });
      expect(next).toMatchObject({ subject: "Verify your address", text: "https://x/verify?token=v3r1fy" });
    });

    test("instances claiming at the same moment never get the same alert", async () => {
      const accounts = await Promise.all(Array.from({ length: 12 }, () => accountWith("11", "10")));
      for (const account of accounts) await move(account, "-2", NOW);
      const claims = await Promise.all(
        Array.from({ length: 6 }, () => store.claimDueAlerts({ now: NOW, claimUntil: NOW + 60_000, limit: 4, channel: "mail" })),
      );
      const ids = claims.flat().map((a) => a.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(12);
    });
  });

  test("the upgrade moves unsent account e-mails' texts out of the outbox and clears the sent ones'", async () => {
    const testDb = await createTestDatabase(dialect);
    const old = openTestDatabase(testDb.url);
    try {
      const upgrade = MIGRATIONS[dialect].findIndex((m) => m.tag === "0012_account_mail_texts");
      for (const migration of MIGRATIONS[dialect].slice(0, upgrade)) for (const statement of migration.statements) await old.run(exec(statement));
      const queue = (id: string, kind: string, body: string, sentAt: number | null) => old.run(exec(
        `INSERT INTO alert_outbox (id, account_id, email, kind, balance_nanos, threshold_nanos, subject, body, created_at, next_attempt_at, sent_at)
         VALUES (?, 'acct', 'a@example.com', ?, 0, 0, 'subject', ?, ?, ?, ?)`,
        id, kind, body, NOW, NOW, sentAt,
      ));
      await queue("unsent", "account", "link 1", null);
      await queue("sent", "account", "link 2", NOW);
      await queue("event", "webhook", "{}", NOW);
      for (const statement of MIGRATIONS[dialect][upgrade]!.statements) await old.run(exec(statement));
      expect(await old.run(rows("SELECT outbox_id, body FROM account_mail_texts"))).toEqual([{ outbox_id: "unsent", body: "link 1" }]);
      expect(await old.run(rows("SELECT id, body FROM alert_outbox ORDER BY id"))).toEqual([
        { id: "event", body: "{}" }, { id: "sent", body: null }, { id: "unsent", body: null },
      ]);
    } finally {
      await old.close();
      await testDb.drop();
    }
  });

  test("without SMTP the sender writes the alert to the log and marks it handled", async () => {
    const logged: { message: string; fields: Fields }[] = [];
    const capture = (message: string, fields: Fields = {}) => logged.push({ message, fields });
    const log: Logger = { info: capture, warn: capture, error: capture };
    const account = await accountWith("11", "10");
    await move(account, "-2", Date.now());
    const { stop } = startAlertSender({
      config: {
        smtpUrl: undefined, alertFrom: "gateway@localhost", alertIntervalMs: 10, dashboardUrl: "https://gw.example/dashboard",
        webhookAllowPrivate: false, webhookTimeoutMs: 1_000,
      },
      store, log, now: Date.now,
    });
    try {
      await waitFor(async () => (await outbox(account))[0]?.sent_at !== null, "the alert to be handled");
    } finally {
      await stop();
    }
    const alert = logged.find((l) => l.fields.to === account.email);
    expect(alert?.message).toBe("e-mail logged, not sent: SMTP_URL is not set");
    expect(alert?.fields.subject).toBe("Your gateway balance is below $10.00");
  });
});
