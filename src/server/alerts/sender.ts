import type { Config } from "../../config.ts";
import { sendDueAlerts, type AlertStore } from "../../core/alerts/low-balance.ts";
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
 * Sends the outbox (low-balance alerts and account e-mails) every `ALERT_INTERVAL_MS`, and at
 * once when woken after an e-mail was queued. Every instance runs one; e-mails are claimed
 * before sending, so each goes out from one instance. `stop` waits for a round in progress,
 * so nothing is sent after it resolves.
 */
export function startAlertSender({ config, store, log, now, resolveHost }: AlertSenderDeps): { stop: () => Promise<void>; wake: () => void } {
  const mailer = alertMailer(config, log);
  const deliverWebhook = webhookPoster({
    store, resolve: resolveHost ?? systemResolver, allowPrivate: config.webhookAllowPrivate, timeoutMs: config.webhookTimeoutMs, now,
  });
  let round: Promise<void> | null = null;
  const send = async () => {
    try {
      const { sent, failed } = await sendDueAlerts({
        store, mailer, deliverWebhook, dashboardUrl: config.dashboardUrl, retryBaseMs: config.alertIntervalMs, now,
      });
      if (sent > 0) log.info("outbox e-mails sent", { sent });
      for (const { alert, error } of failed) {
        log.warn(alert.kind === "webhook" ? "webhook event not delivered; will retry" : "outbox e-mail not sent; will retry", {
          alertId: alert.id, kind: alert.kind, attempts: alert.attempts, error,
        });
      }
    } catch (error) {
      log.warn("outbox round failed", { error: (error as Error).message });
    }
  };
  let again = false;
  let stopped = false;
  const tick = () => {
    // Woken during a round: one more round follows it, so a message queued meanwhile is not left for the timer.
    if (round) {
      again = true;
      return;
    }
    round = send().finally(() => {
      round = null;
      if (again && !stopped) {
        again = false;
        tick();
      }
    });
  };
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
      while (round) await round;
      mailer.close();
    },
  };
}
