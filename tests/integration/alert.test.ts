import { afterAll, expect, test } from "bun:test";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import { rows } from "../../src/db/sql.ts";
import { fundedKey } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { startFakeSmtp, type FakeSmtp } from "../support/fake-smtp.ts";
import { useGateway } from "../support/server.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;

// One mail server for both dialects; every test tells its messages apart by the user's e-mail.
const smtp: FakeSmtp = await startFakeSmtp();
const upstream = startFakeUpstream();
afterAll(async () => {
  await smtp.stop();
  await upstream.stop();
});

describeEachDialect("low-balance e-mail alerts", (dialect) => {
  const gateway = useGateway(dialect, {
    SMTP_URL: smtp.url,
    ALERT_FROM: "alerts@gateway.test",
    ALERT_INTERVAL_MS: "10",
    PUBLIC_URL: "https://gw.example",
    FREE_CREDITS_USD: "0",
    ...providerEnv(upstream),
  });

  /** A signed-up user holding `balance` USD, with the alert threshold set through the dashboard endpoint. */
  async function userWith(balance: string, threshold: number): Promise<{ user: Browser; accountId: string }> {
    const user = await signUpUser(gateway().url);
    const accountId = (await gateway().store.findAccountByEmail(user.email))!.id;
    await gateway().store.addCredit({ accountId, amount: usd(balance), kind: "grant", now: Date.now() });
    expect((await user.send("PATCH", "/settings/alert-threshold", { threshold })).status).toBe(200);
    return { user, accountId };
  }
  const debit = (accountId: string, amount: string) =>
    gateway().store.addCredit({ accountId, amount: usd(`-${amount}`), kind: "adjustment", note: "test debit", now: Date.now() });
  const credit = (accountId: string, amount: string) =>
    gateway().store.addCredit({ accountId, amount: usd(amount), kind: "grant", now: Date.now() });
  // The account's low-balance e-mails only: its sign-up's verification e-mail goes through the same outbox.
  const mailTo = (user: Browser) => smtp.received.filter((m) => m.to.includes(user.email) && m.raw.includes("Subject: Your gateway balance"));
  const outbox = (accountId: string) =>
    gateway().db.run(rows("SELECT attempts, sent_at, last_error FROM alert_outbox WHERE account_id = ? AND kind = 'low_balance' ORDER BY created_at", accountId));

  /**
   * Waits until another user's alert has arrived: the sender handles alerts oldest first, so
   * anything it would still send for earlier debits has been sent by then.
   */
  async function barrier(): Promise<void> {
    const { user, accountId } = await userWith("2", 1);
    await debit(accountId, "1.5");
    await waitFor(() => mailTo(user).length === 1, "the barrier user's alert");
  }

  test("a debit across the threshold sends one e-mail to the account's address, from ALERT_FROM", async () => {
    const { user, accountId } = await userWith("20", 10);
    await debit(accountId, "5");
    await debit(accountId, "5.5");
    await waitFor(() => mailTo(user).length === 1, "the low-balance e-mail");
    const [mail] = mailTo(user);
    expect(mail!.from).toBe("alerts@gateway.test");
    expect(mail!.to).toEqual([user.email]);
    expect(mail!.raw).toContain("Subject: Your gateway balance is below $10.00");
    expect(mail!.text).toContain("Your credit balance is $9.50, below the $10.00 low-balance alert threshold you set.");
    expect(mail!.text).toContain("Add credits at https://gw.example/dashboard/topup");

    await debit(accountId, "3");
    await barrier();
    expect(mailTo(user)).toHaveLength(1);
    expect(await outbox(accountId)).toEqual([{ attempts: 1n, sent_at: expect.any(BigInt), last_error: null } as never]);
  });

  test("re-arms once the balance is back at the threshold: the next crossing sends a second e-mail", async () => {
    const { user, accountId } = await userWith("11", 10);
    await debit(accountId, "2");
    await waitFor(() => mailTo(user).length === 1, "the first alert");
    await credit(accountId, "0.999999999");
    await debit(accountId, "1");
    await barrier();
    expect(mailTo(user)).toHaveLength(1);
    await credit(accountId, "2.000000001");
    await debit(accountId, "1.1");
    await waitFor(() => mailTo(user).length === 2, "the second alert");
    expect(mailTo(user)[1]!.text).toContain("Your credit balance is $9.90,");
  });

  test("no e-mail while alerts are off", async () => {
    const { user, accountId } = await userWith("11", 10);
    expect((await user.send("PATCH", "/settings/alert-threshold", { threshold: null })).status).toBe(200);
    await debit(accountId, "5");
    await barrier();
    expect(mailTo(user)).toEqual([]);
    expect(await outbox(accountId)).toEqual([]);
  });

  test("while the mail server is down the alert is kept and retried, and delivered once it is back", async () => {
    const { user, accountId } = await userWith("11", 10);
    smtp.setDown(true);
    try {
      await debit(accountId, "2");
      await waitFor(async () => (await outbox(accountId))[0]?.last_error != null, "a failed attempt");
      const [failed] = await outbox(accountId);
      expect(failed).toMatchObject({ sent_at: null });
      expect(String(failed!.last_error)).toContain("421");
      expect(mailTo(user)).toEqual([]);
    } finally {
      smtp.setDown(false);
    }
    // Marked sent just after the mail server accepted it: wait for the mark, not the mail.
    await waitFor(async () => (await outbox(accountId))[0]?.sent_at != null, "the retried alert to be sent");
    expect(mailTo(user)).toHaveLength(1);
    const [sent] = await outbox(accountId);
    expect(sent).toMatchObject({ sent_at: expect.any(BigInt), last_error: null });
    expect(Number(sent!.attempts)).toBeGreaterThan(1);
    await barrier();
    expect(mailTo(user)).toHaveLength(1);
  });

  test("a chat completion whose charge crosses the threshold sends the alert", async () => {
    // $10.000001 with a $10 threshold: the fake provider's usage costs a few millionths of a dollar.
    const { secret, account } = await fundedKey(gateway().store, "10.000001");
    await gateway().store.updateAccount(account.id, { alertThreshold: usd("10") });
    expect((await postChat(gateway().url, secret, hello())).status).toBe(200);
    await waitFor(() => smtp.received.some((m) => m.to.includes(account.email)), "the alert for the chat charge");
    const balance = (await gateway().store.getAccount(account.id))!.balance;
    expect(balance < usd("10")).toBe(true);
  });
});
