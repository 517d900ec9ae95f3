import type { Config } from "../../config.ts";
import { sendDueAlerts, type AlertStore } from "../../core/alerts.ts";
import type { Logger } from "../log.ts";
import { alertMailer } from "./mailer.ts";

export interface AlertSenderDeps {
  config: Pick<Config, "smtpUrl" | "alertFrom" | "alertIntervalMs" | "dashboardUrl">;
  store: AlertStore;
  log: Logger;
  now: () => number;
}

/**
 * Sends the low-balance alert outbox every `ALERT_INTERVAL_MS`. Every instance runs one;
 * alerts are claimed before sending, so each goes out from one instance. Returns a stop
 * function that waits for a round in progress, so nothing is sent after it resolves.
 */
export function startAlertSender({ config, store, log, now }: AlertSenderDeps): () => Promise<void> {
  const mailer = alertMailer(config, log);
  let round: Promise<void> | null = null;
  const send = async () => {
    try {
      const { sent, failed } = await sendDueAlerts({
        store, mailer, dashboardUrl: config.dashboardUrl, retryBaseMs: config.alertIntervalMs, now,
      });
      if (sent > 0) log.info("low-balance alerts sent", { sent });
      for (const { alert, error } of failed) {
        log.warn("low-balance alert not sent; will retry", { alertId: alert.id, attempts: alert.attempts, error });
      }
    } catch (error) {
      log.warn("low-balance alert round failed", { error: (error as Error).message });
    }
  };
  const tick = () => {
    round ??= send().finally(() => {
      round = null;
    });
  };
  tick();
  const timer = setInterval(tick, config.alertIntervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await round;
    mailer.close();
  };
}
