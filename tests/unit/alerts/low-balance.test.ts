import { describe, expect, test } from "bun:test";
import {
  ALERT_CLAIM_MS, alertRetryDelayMs, alertTransition, lowBalanceMessage, sendDueAlerts, startDueWebhooks,
  type AlertMessage, type AlertStore, type PendingAlert,
} from "../../../src/core/alerts/low-balance.ts";
import { parseUsd, type Nanos } from "../../../src/core/money.ts";

const usd = (amount: string) => parseUsd(amount, { signed: true }) as Nanos;

describe("alertTransition", () => {
  test.each([
    ["a debit across the threshold alerts", "12", "9.99", "10", true, "alert"],
    ["a debit from exactly the threshold alerts", "10", "9.999999999", "10", true, "alert"],
    ["a debit to exactly the threshold does not", "12", "10", "10", true, null],
    ["a debit that stays above does not", "20", "15", "10", true, null],
    ["a debit when already below does not", "9", "8", "10", true, null],
    ["a debit across it while disarmed does not", "12", "9", "10", false, null],
    ["a credit back to the threshold re-arms", "9", "10", "10", false, "rearm"],
    ["a credit that stays below keeps it disarmed", "5", "9.99", "10", false, null],
    ["a credit while armed changes nothing", "9", "30", "10", true, null],
    ["a threshold of 0 alerts when the balance goes negative", "0.01", "-0.01", "0", true, "alert"],
  ] as const)("%s", (_title, before, after, threshold, armed, expected) => {
    expect(alertTransition({ before: usd(before), after: usd(after), threshold: usd(threshold), armed })).toBe(expected);
  });

  test("alerts are off without a threshold", () => {
    expect(alertTransition({ before: usd("12"), after: usd("1"), threshold: null, armed: true })).toBeNull();
    expect(alertTransition({ before: usd("1"), after: usd("12"), threshold: null, armed: false })).toBeNull();
  });
});

describe("alertRetryDelayMs", () => {
  test.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [10, 512_000],
    [13, 3_600_000],
    [60, 3_600_000],
  ])("after attempt %p waits %p ms (base 1 s, at most an hour)", (attempts, delay) => {
    expect(alertRetryDelayMs(attempts, 1_000)).toBe(delay);
  });
});

describe("lowBalanceMessage", () => {
  test("names the balance and threshold in dollars and links the top-up page", () => {
    const message = lowBalanceMessage({ email: "a@example.com", balance: usd("4.2"), threshold: usd("5") }, "https://gw.example/dashboard");
    expect(message).toEqual({
      to: "a@example.com",
      subject: "Your gateway balance is below $5.00",
      text: [
        "Your credit balance is $4.20, below the $5.00 low-balance alert threshold you set.",
        "",
        "Add credits at https://gw.example/dashboard/topup so that your API requests keep working.",
        "",
        "You will not be alerted again until your balance is back at or above the threshold.",
        "",
      ].join("\n"),
    });
  });

  test("shows a negative balance with its sign before the dollar", () => {
    const message = lowBalanceMessage({ email: "a@example.com", balance: usd("-0.5"), threshold: usd("1") }, "https://x");
    expect(message.text).toStartWith("Your credit balance is -$0.50, below the $1.00");
  });
});

describe("sendDueAlerts", () => {
  const alert = (id: string, attempts: number): PendingAlert => ({
    id, accountId: "acct", email: `${id}@example.com`, kind: "low_balance", balance: usd("1"), threshold: usd("2"),
    subject: null, text: null, createdAt: 0, attempts,
  });

  test("sends what it claimed, marks it sent, and schedules a failed one for a backed-off retry", async () => {
    const events: string[] = [];
    let clock = 1_000;
    const store: AlertStore = {
      claimDueAlerts: async (input) => {
        events.push(`claim ${input.channel} now=${input.now} until=${input.claimUntil} limit=${input.limit}`);
        return [alert("ok", 1), alert("bad", 3)];
      },
      markAlertSent: async (id, now) => {
        events.push(`sent ${id} at ${now}`);
      },
      markAlertFailed: async (id, error, retryAt) => {
        events.push(`failed ${id}: ${error}, retry at ${retryAt}`);
      },
      eraseSentAccountMailTexts: async () => void events.push("erase"),
    };
    const delivered: AlertMessage[] = [];
    const mailer = {
      send: async (message: AlertMessage) => {
        clock += 10;
        if (message.to.startsWith("bad")) throw new Error("451 try later");
        delivered.push(message);
      },
    };
    const result = await sendDueAlerts({ store, mailer, dashboardUrl: "https://x", retryBaseMs: 100, now: () => clock });
    expect(result).toEqual({ sent: 1, failed: [{ alert: alert("bad", 3), error: "451 try later" }] });
    expect(delivered.map((m) => m.to)).toEqual(["ok@example.com"]);
    expect(events).toEqual([
      `claim mail now=1000 until=${1000 + ALERT_CLAIM_MS} limit=20`,
      "sent ok at 1010",
      "failed bad: 451 try later, retry at 1420",
    ]);
  });

  const accountMail = (id: string): PendingAlert => ({ ...alert(id, 1), kind: "account", subject: "Reset", text: `link ${id}` });
  const accountMailStore = (events: string[], erase: () => Promise<void>): AlertStore => ({
    claimDueAlerts: async () => [accountMail("one"), alert("low", 1), accountMail("two")],
    markAlertSent: async (id) => void events.push(`sent ${id}`),
    markAlertFailed: async (id) => void events.push(`failed ${id}`),
    eraseSentAccountMailTexts: async () => (events.push("erase"), erase()),
  });
  const mailer = { send: async () => {} };

  test("wipes sent account e-mails' texts once, after the round's last one was marked sent", async () => {
    const events: string[] = [];
    const store = accountMailStore(events, async () => {});
    expect(await sendDueAlerts({ store, mailer, dashboardUrl: "https://x", retryBaseMs: 100, now: () => 0 })).toEqual({ sent: 3, failed: [] });
    expect(events).toEqual(["sent one", "sent low", "sent two", "erase"]);
  });

  test("answers a failed wipe without failing the round: the e-mails are sent and marked", async () => {
    const events: string[] = [];
    const store = accountMailStore(events, async () => {
      throw new Error("canceling statement due to lock timeout");
    });
    const result = await sendDueAlerts({ store, mailer, dashboardUrl: "https://x", retryBaseMs: 100, now: () => 0 });
    expect(result).toEqual({ sent: 3, failed: [], eraseFailed: "canceling statement due to lock timeout" });
    expect(events).toEqual(["sent one", "sent low", "sent two", "erase"]);
  });
});

describe("startDueWebhooks", () => {
  test("claims only webhook events and answers once each delivery has started, not ended", async () => {
    const channels: string[] = [];
    const marked: string[] = [];
    const event = (id: string): PendingAlert => ({
      id, accountId: "acct", email: "", kind: "webhook", balance: usd("0"), threshold: usd("0"),
      subject: "credits.granted", text: "{}", createdAt: 0, attempts: 1,
    });
    const store: AlertStore = {
      claimDueAlerts: async (input) => (channels.push(input.channel), [event("hangs"), event("answers")]),
      markAlertSent: async (id, _now, answer) => void marked.push(`${id} ${answer}`),
      markAlertFailed: async (id, error) => void marked.push(`${id} failed: ${error}`),
      eraseSentAccountMailTexts: async () => void marked.push("erase"),
    };
    const hanging = Promise.withResolvers<string>();
    const deliver = (e: PendingAlert) => (e.id === "hangs" ? hanging.promise : Promise.resolve("200"));
    const started = await startDueWebhooks({ store, deliver, retryBaseMs: 100, now: () => 0 });
    expect(channels).toEqual(["webhook"]);
    expect(started).toHaveLength(2);
    expect(await started[1]).toBeNull();
    expect(marked).toEqual(["answers 200"]); // delivered while the other still hangs
    hanging.reject(new Error("timed out after 10 s"));
    expect(await started[0]).toMatchObject({ error: "timed out after 10 s" });
    expect(marked).toEqual(["answers 200", "hangs failed: timed out after 10 s"]);
  });
});
