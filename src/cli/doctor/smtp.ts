import nodemailer from "nodemailer";
import type { Config } from "../../config.ts";
import { failureText, type Check } from "./check.ts";

const SMTP_TIMEOUT_MS = 10_000;

/** Where SMTP_URL points, without its user name or password. */
function serverOf(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  return `${url.protocol}//${url.host}`;
}

/**
 * Without SMTP, low-balance alerts and the verification and reset links are only logged, which
 * is allowed (warn: customers then cannot verify or recover their accounts by themselves). With SMTP_URL the
 * server must accept a connection and, when the URL has credentials, the login (nodemailer's
 * verify: no message is sent).
 */
export async function checkSmtp(config: Pick<Config, "smtpUrl" | "alertFrom">, offline: boolean): Promise<Check[]> {
  if (config.smtpUrl === undefined) {
    return [{ name: "smtp", status: "warn", message: "SMTP_URL is not set: low-balance alerts and verification and reset links are written to the log instead of e-mailed" }];
  }
  const server = serverOf(config.smtpUrl);
  const from: Check[] = config.alertFrom.endsWith("@localhost")
    ? [{ name: "smtp sender", status: "warn", message: `ALERT_FROM is ${config.alertFrom}: most mail servers refuse or bin mail from it; set a real address` }]
    : [];
  if (offline) return [{ name: "smtp", status: "skip", message: `SMTP_URL is set (${server}); not contacted (--offline)` }, ...from];

  const transport = nodemailer.createTransport({
    url: config.smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  try {
    await transport.verify();
    return [{ name: "smtp", status: "ok", message: `${server} accepts connections from this host` }, ...from];
  } catch (error) {
    return [{ name: "smtp", status: "fail", message: `cannot use ${server}: ${failureText(error)}; low-balance alerts will not be sent` }, ...from];
  } finally {
    transport.close();
  }
}
