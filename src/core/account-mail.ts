import type { QueuedMail } from "./account-store.ts";

// The account e-mails. Their links carry the token once; the outbox clears the text when sent.

export function verificationMail(dashboardUrl: string, token: string): QueuedMail {
  return {
    subject: "Confirm your e-mail address",
    text: [
      "Welcome to the gateway. Confirm that this address is yours by opening:",
      "",
      `${dashboardUrl}/verify?token=${token}`,
      "",
      "The link works once, for 24 hours. Your free credits are added when you confirm.",
      "If you did not sign up, ignore this e-mail.",
      "",
    ].join("\n"),
  };
}

export function resetMail(dashboardUrl: string, token: string): QueuedMail {
  return {
    subject: "Reset your gateway password",
    text: [
      "Someone (we hope you) asked to reset the password of your gateway account. Choose a new one at:",
      "",
      `${dashboardUrl}/reset?token=${token}`,
      "",
      "The link works once, for one hour, and signs you out everywhere.",
      "If you did not ask, ignore this e-mail: your password stays as it is.",
      "",
    ].join("\n"),
  };
}
