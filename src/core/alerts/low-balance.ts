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

/** The outbox's two ways out: e-mails (alerts and account e-mails), sent in order, and webhook events. */
export type OutboxChannel = "mail" | "webhook";

export interface AlertStore {
  /**
   * Claims up to `limit` unsent alerts that are due at `now` by moving their next attempt to
   * `claimUntil`, atomically: of several instances claiming at once, each alert goes to one.
   */
  claimDueAlerts(input: { now: number; claimUntil: number; limit: number; channel: OutboxChannel }): Promise<PendingAlert[]>;
  /** Marks it sent and deletes an account e-mail's text, which carries a live link; `answer` is a webhook receiver's. */
  markAlertSent(id: string, now: number, answer?: string): Promise<void>;
  /** Wipes the texts of sent account e-mails from the database's files, where deleted rows linger. */
  eraseSentAccountMailTexts(): Promise<void>;
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
  dashboardUrl: string;
  /** The first retry waits this long; later ones back off exponentially. */
  retryBaseMs: number;
  now: () => number;
}

type Failure = { alert: PendingAlert; error: string };

/** Sends one claimed message: marked sent (with its answer), or kept with its error for a backed-off retry. */
async function attempt(deps: Pick<AlertSenderDeps, "store" | "retryBaseMs" | "now">, alert: PendingAlert, deliver: () => Promise<string | undefined>): Promise<Failure | null> {
  let answer: string | undefined;
  try {
    answer = await deliver();
  } catch (cause) {
    const error = cause instanceof Error ? cause.message : String(cause);
    await deps.store.markAlertFailed(alert.id, error, deps.now() + alertRetryDelayMs(alert.attempts, deps.retryBaseMs));
    return { alert, error };
  }
  await deps.store.markAlertSent(alert.id, deps.now(), answer);
  return null;
}

const claim = (deps: Pick<AlertSenderDeps, "store" | "now">, channel: OutboxChannel) => {
  const start = deps.now();
  return deps.store.claimDueAlerts({ now: start, claimUntil: start + ALERT_CLAIM_MS, limit: ALERTS_PER_ROUND, channel });
};

/**
 * One round of the outbox's e-mails: claims the due ones and sends each, one after another in
 * the order queued. A sent one is marked sent; a failed one is kept with its error and tried
 * again later, so nothing is lost. After a round that sent account e-mails, their deleted texts
 * are wiped from the disk; should that fail, the e-mails are sent all the same and the error is
 * answered (`eraseFailed`): the next round that sends one wipes them.
 */
export async function sendDueAlerts(deps: AlertSenderDeps): Promise<{ sent: number; failed: Failure[]; eraseFailed?: string }> {
  const failed: Failure[] = [];
  let sent = 0;
  let accountMailsSent = false;
  for (const alert of await claim(deps, "mail")) {
    const failure = await attempt(deps, alert, async () => void (await deps.mailer.send(outboxMessage(alert, deps.dashboardUrl))));
    if (failure) failed.push(failure);
    else {
      sent++;
      accountMailsSent ||= alert.kind === "account";
    }
  }
  if (!accountMailsSent) return { sent, failed };
  try {
    await deps.store.eraseSentAccountMailTexts();
    return { sent, failed };
  } catch (cause) {
    return { sent, failed, eraseFailed: cause instanceof Error ? cause.message : String(cause) };
  }
}

/**
 * Claims the due webhook events and starts each delivery, answering them started, not done: a
 * receiver slow to answer (up to its timeout) then holds no e-mail, no other event and no
 * later round. Each settles to its failure, or null once delivered.
 */
export async function startDueWebhooks(
  deps: Pick<AlertSenderDeps, "store" | "retryBaseMs" | "now"> & { deliver(event: PendingAlert): Promise<string> },
): Promise<Promise<Failure | null>[]> {
  return (await claim(deps, "webhook")).map((event) => attempt(deps, event, () => deps.deliver(event)));
}
