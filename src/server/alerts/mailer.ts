import nodemailer from "nodemailer";
import type { Config } from "../../config.ts";
import type { Mailer } from "../../core/alerts/low-balance.ts";
import type { Logger } from "../log.ts";

interface ClosableMailer extends Mailer {
  close(): void;
}

// Bounds on one delivery, well inside the outbox's claim on the alert (ALERT_CLAIM_MS), so a
// stuck server fails the attempt instead of letting another instance send it a second time.
const SMTP_TIMEOUTS_MS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/**
 * How the outbox's e-mails (low-balance alerts, account e-mails) leave the gateway: over SMTP (`SMTP_URL`, e.g.
 * `smtps://user:pass@mail.example.com:465`) from `ALERT_FROM`; without SMTP_URL they are
 * written to the log instead, which counts as handled.
 */
export function alertMailer(config: Pick<Config, "smtpUrl" | "alertFrom">, log: Logger): ClosableMailer {
  if (config.smtpUrl === undefined) {
    return {
      // The operator reads verification and reset links here, as DESIGN asks: without SMTP the log is the only way out.
      send: async (message) => log.warn("e-mail logged, not sent: SMTP_URL is not set", { ...message }),
      close: () => {},
    };
  }
  const transport = nodemailer.createTransport({ url: config.smtpUrl, ...SMTP_TIMEOUTS_MS });
  return {
    send: async (message) => {
      await transport.sendMail({ from: config.alertFrom, ...message });
    },
    close: () => transport.close(),
  };
}
