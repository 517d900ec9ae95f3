import { formatUsd, nanos, type Nanos } from "../money.ts";

/** The alert state an account's balance change is judged against. */
interface BalanceMove {
  before: Nanos;
  after: Nanos;
  /** Null when the account turned alerts off. */
  threshold: Nanos | null;
  /** False from the alert until the balance is back at or above the threshold. */
  armed: boolean;
}

/**
 * What a balance change does to the low-balance alert: `alert` when it takes an armed
 * account's balance from at or above the threshold to below it (one e-mail, then disarmed);
 * `rearm` once a disarmed account's balance is back at or above it; otherwise nothing.
 */
export function alertTransition(move: BalanceMove): "alert" | "rearm" | null {
  const { before, after, threshold, armed } = move;
  if (threshold === null) return null;
  if (armed && before >= threshold && after < threshold) return "alert";
  if (!armed && after >= threshold) return "rearm";
  return null;
}

/**
 * A queued message: a low-balance alert (`low_balance`, worded when sent from its balance and
 * threshold), an account e-mail (`account`: verification, password reset) queued as written, or
 * a webhook event (`webhook`: `subject` its type, `text` its signed body).
 */
export interface PendingAlert {
  id: string;
  accountId: string;
  email: string;
  kind: "low_balance" | "account" | "webhook";
  balance: Nanos;
  threshold: Nanos;
  /** The account e-mail's subject and text; null for low-balance alerts. */
  subject: string | null;
  text: string | null;
  createdAt: number;
  /** Sending attempts started, this one included. */
  attempts: number;
}

export interface AlertStore {
  /**
   * Claims up to `limit` unsent alerts that are due at `now` by moving their next attempt to
   * `claimUntil`, atomically: of several instances claiming at once, each alert goes to one.
   */
  claimDueAlerts(input: { now: number; claimUntil: number; limit: number }): Promise<PendingAlert[]>;
  /** Marks it sent and clears an account e-mail's text, which carries a live link; `answer` is a webhook receiver's. */
  markAlertSent(id: string, now: number, answer?: string): Promise<void>;
  /** Records the failure (a webhook receiver's answer, or why there was none) and when to try again. */
  markAlertFailed(id: string, error: string, retryAt: number): Promise<void>;
}

export interface AlertMessage {
  to: string;
  subject: string;
  text: string;
}

/** The e-mail of a queued message: an account e-mail as queued, a low-balance alert worded now. */
export const outboxMessage = (alert: PendingAlert, dashboardUrl: string): AlertMessage =>
  alert.kind === "account"
    ? { to: alert.email, subject: alert.subject ?? "", text: alert.text ?? "" }
    : lowBalanceMessage(alert, dashboardUrl);

/** Delivers one message or throws. */
export interface Mailer {
  send(message: AlertMessage): Promise<void>;
}

const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** A claimed alert is left to its claimer this long; one whose sender died becomes due again after it. */
export const ALERT_CLAIM_MS = 5 * 60 * 1000;
const ALERTS_PER_ROUND = 20;

/** Exponential backoff after the `attempts`-th failure: base, 2×base, 4×base… up to an hour. */
export function alertRetryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
}

const dollars = (amount: Nanos): string =>
  amount < 0n ? `-$${formatUsd(nanos(-amount), 2)}` : `$${formatUsd(amount, 2)}`;

/** The low-balance e-mail: the balance, the threshold, and where to top up. */
export function lowBalanceMessage(alert: Pick<PendingAlert, "email" | "balance" | "threshold">, dashboardUrl: string): AlertMessage {
  return {
    to: alert.email,
    subject: `Your gateway balance is below ${dollars(alert.threshold)}`,
    text: [
      `Your credit balance is ${dollars(alert.balance)}, below the ${dollars(alert.threshold)} low-balance alert threshold you set.`,
      "",
      `Add credits at ${dashboardUrl}/topup so that your API requests keep working.`,
      "",
      "You will not be alerted again until your balance is back at or above the threshold.",
      "",
    ].join("\n"),
  };
}

export interface AlertSenderDeps {
  store: AlertStore;
  mailer: Mailer;
  /** POSTs a webhook event to its account's endpoint: the receiver's answer, or throws why it was not taken. */
  deliverWebhook(event: PendingAlert): Promise<string>;
  dashboardUrl: string;
  /** The first retry waits this long; later ones back off exponentially. */
  retryBaseMs: number;
  now: () => number;
}

/**
 * One round of the outbox: claims what is due and sends each. A sent message is marked sent; a
 * failed one is kept with its error and tried again later, so nothing is lost. E-mails go one
 * after another, in the order queued; webhook events each on their own, beside them, so that a
 * receiver that is slow to answer (up to its timeout) holds no e-mail and no other account's event.
 */
export async function sendDueAlerts(deps: AlertSenderDeps): Promise<{ sent: number; failed: { alert: PendingAlert; error: string }[] }> {
  const { store, mailer, now } = deps;
  const start = now();
  const due = await store.claimDueAlerts({ now: start, claimUntil: start + ALERT_CLAIM_MS, limit: ALERTS_PER_ROUND });
  let sent = 0;
  const failed: { alert: PendingAlert; error: string }[] = [];
  const attempt = async (alert: PendingAlert, deliver: () => Promise<string | undefined>) => {
    let answer: string | undefined;
    try {
      answer = await deliver();
    } catch (cause) {
      const error = cause instanceof Error ? cause.message : String(cause);
      await store.markAlertFailed(alert.id, error, now() + alertRetryDelayMs(alert.attempts, deps.retryBaseMs));
      failed.push({ alert, error });
      return;
    }
    await store.markAlertSent(alert.id, now(), answer);
    sent++;
  };
  const mails = async () => {
    for (const alert of due.filter((a) => a.kind !== "webhook")) {
      await attempt(alert, async () => void (await mailer.send(outboxMessage(alert, deps.dashboardUrl))));
    }
  };
  const events = due.filter((a) => a.kind === "webhook").map((event) => attempt(event, () => deps.deliverWebhook(event)));
  await Promise.all([mails(), ...events]);
  return { sent, failed };
}
