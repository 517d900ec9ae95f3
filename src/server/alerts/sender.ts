import type { Config } from "../../config.ts";
import { sendDueAlerts, type AlertStore } from "../../core/alerts/low-balance.ts";
import type { Logger } from "../log.ts";
import { alertMailer } from "./mailer.ts";

export interface AlertSenderDeps {
  config: Pick<Config, "smtpUrl" | "alertFrom" | "alertIntervalMs" | "dashboardUrl">;
  store: AlertStore;
  log: Logger;
  now: () => number;
}

/**
 * Sends the outbox (low-balance alerts and account e-mails) every `ALERT_INTERVAL_MS`, and at
 * once when woken after an e-mail was queued. Every instance runs one; e-mails are claimed
 * before sending, so each goes out from one instance. `stop` waits for a round in progress,
 * so nothing is sent after it resolves.
 */
export function startAlertSender({ config, store, log, now }: AlertSenderDeps): { stop: () => Promise<void>; wake: () => void } {
  const mailer = alertMailer(config, log);
  let round: Promise<void> | null = null;
  const send = async () => {
    try {
      const { sent, failed } = await sendDueAlerts({
        store, mailer, dashboardUrl: config.dashboardUrl, retryBaseMs: config.alertIntervalMs, now,
      });
      if (sent > 0) log.info("outbox e-mails sent", { sent });
      for (const { alert, error } of failed) {
        log.warn("outbox e-mail not sent; will retry", { alertId: alert.id, kind: alert.kind, attempts: alert.attempts, error });
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
