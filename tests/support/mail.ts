// Reads the account e-mails the gateway sent to the fake SMTP server, and follows their links.
import type { FakeSmtp, ReceivedMail } from "./fake-smtp.ts";
import { request } from "./session.ts";
import { waitFor } from "./wait.ts";

export const mailsTo = (smtp: FakeSmtp, email: string): ReceivedMail[] => smtp.received.filter((m) => m.to.includes(email));

/** Waits for the `n`-th e-mail to `email` whose link goes to `/dashboard/<page>`, and answers its token. */
export async function linkToken(smtp: FakeSmtp, email: string, page: "verify" | "reset" | "invitations/accept", n = 1): Promise<string> {
  const pattern = new RegExp(`/dashboard/${page}\\?token=([A-Za-z0-9_-]+)`);
  const links = () => mailsTo(smtp, email).map((m) => pattern.exec(m.text)?.[1]).filter((t): t is string => t !== undefined);
  await waitFor(() => links().length >= n, `e-mail #${n} with a ${page} link to ${email}`, 5_000);
  return links()[n - 1]!;
}

/** Follows the verification e-mail's link, as the dashboard's verify page does. */
export async function verifyByMail(smtp: FakeSmtp, baseUrl: string, email: string): Promise<Response> {
  return request(baseUrl, "POST", "/auth/verify", { token: await linkToken(smtp, email, "verify") });
}
