import type { Config } from "../../config.ts";
import { sendDueAlerts, startDueWebhooks, type AlertStore } from "../../core/alerts/low-balance.ts";
import type { Logger } from "../log.ts";
import type { WebhookStore } from "../../core/webhooks/store.ts";
import { alertMailer } from "./mailer.ts";
import { systemResolver, webhookPoster, type Resolve } from "./webhook-poster.ts";

export interface AlertSenderDeps {
  config: Pick<Config, "smtpUrl" | "alertFrom" | "alertIntervalMs" | "dashboardUrl" | "webhookAllowPrivate" | "webhookTimeoutMs">;
  store: AlertStore & WebhookStore;
  /** How webhook receivers' names are resolved; the system's resolver unless a test gives its own. */
  resolveHost?: Resolve;
  log: Logger;
  now: () => number;
}

/**
 * Sends the outbox (low-balance alerts, account e-mails and webhook events) every
 * `ALERT_INTERVAL_MS`, and at once when woken after something was queued: e-mails in rounds of
 * their own, webhook events each on its own, so that no receiver holds an e-mail or another
 * account's event. Every instance runs one; messages are claimed before sending, so each goes
 * out from one instance. `stop` waits for a round or delivery in progress,
 * so nothing is sent after it resolves.
 */
export function startAlertSender({ config, store, log, now, resolveHost }: AlertSenderDeps): { stop: () => Promise<void>; wake: () => void } {
  const mailer = alertMailer(config, log);
  const deliver = webhookPoster({
    store, resolve: resolveHost ?? systemResolver, allowPrivate: config.webhookAllowPrivate, timeoutMs: config.webhookTimeoutMs, now,
  });
  const retryBaseMs = config.alertIntervalMs;
  const mails = async () => {
    const { sent, failed, eraseFailed } = await sendDueAlerts({ store, mailer, dashboardUrl: config.dashboardUrl, retryBaseMs, now });
    if (sent > 0) log.info("outbox e-mails sent", { sent });
    if (eraseFailed) log.warn("sent account e-mails' texts not wiped from the database files; the next one sent retries", { error: eraseFailed });
    for (const { alert, error } of failed) log.warn("outbox e-mail not sent; will retry", { alertId: alert.id, kind: alert.kind, attempts: alert.attempts, error });
  };
  // Webhook deliveries are started by a round and end on their own: the round does not wait.
  const delivering = new Set<Promise<unknown>>();
  const webhooks = async () => {
    for (const delivery of await startDueWebhooks({ store, deliver, retryBaseMs, now })) {
      const tracked = delivery.then((failure) => {
        if (failure) log.warn("webhook event not delivered; will retry", { alertId: failure.alert.id, attempts: failure.alert.attempts, error: failure.error });
      }).finally(() => delivering.delete(tracked));
      delivering.add(tracked);
    }
  };
  let stopped = false;
  const loops = [serialRounds(mails, log, () => stopped), serialRounds(webhooks, log, () => stopped)];
  const tick = () => loops.forEach((loop) => loop.tick());
  tick();
  const timer = setInterval(tick, config.alertIntervalMs);
  timer.unref();
  return {
    wake: () => {
      if (!stopped) tick();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      for (const loop of loops) await loop.idle();
      await Promise.all(delivering);
      mailer.close();
    },
  };
}

/** Rounds of `work` one at a time; a tick during a round asks for one more after it, so nothing queued meanwhile waits for the timer. */
function serialRounds(work: () => Promise<void>, log: Logger, stopped: () => boolean) {
  let round: Promise<void> | null = null;
  let again = false;
  const tick = (): void => {
    if (round) {
      again = true;
      return;
    }
    round = work().catch((error: Error) => log.warn("outbox round failed", { error: error.message })).finally(() => {
      round = null;
      if (again && !stopped()) {
        again = false;
        tick();
      }
    });
  };
  return {
    tick,
    idle: async () => {
      while (round) await round;
    },
  };
}
