import type { QueuedMail } from "./store.ts";

// The account e-mails. Their links carry the token once; the outbox clears the text when sent.

const linkMail = (subject: string, intro: string, link: string, after: string[]): QueuedMail => ({
  subject,
  text: [intro, "", link, "", ...after, ""].join("\n"),
});

export const verificationMail = (dashboardUrl: string, token: string): QueuedMail =>
  linkMail("Confirm your e-mail address", "Welcome to the gateway. Confirm that this address is yours by opening:",
    `${dashboardUrl}/verify?token=${token}`,
    ["The link works once, for 24 hours. Your free credits are added when you confirm.", "If you did not sign up, ignore this e-mail."]);

export const resetMail = (dashboardUrl: string, token: string): QueuedMail =>
  linkMail("Reset your gateway password",
    "Someone (we hope you) asked to reset the password of your gateway account. Choose a new one at:",
    `${dashboardUrl}/reset?token=${token}`,
    ["The link works once, for one hour, and signs you out everywhere.", "If you did not ask, ignore this e-mail: your password stays as it is."]);
