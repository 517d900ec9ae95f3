import { call } from "./api.ts";
import { h } from "./dom.ts";
import type { SecurityView } from "./wire.ts";

/**
 * Above every signed-in page until the e-mail is confirmed: why it matters (the free credits,
 * password recovery) and a button that sends the link again.
 */
export async function verifyBanner(): Promise<HTMLElement | null> {
  const security = await call<SecurityView>("GET", "/account/security");
  if (security.emailVerified) return null;
  const status = h("span", { "aria-live": "polite" });
  const resend = h("button", { type: "button", class: "button secondary" }, "Send the link again");
  resend.addEventListener("click", async () => {
    resend.disabled = true;
    try {
      await call("POST", "/auth/verify/resend");
      status.textContent = " Sent. Check your inbox.";
    } catch (error) {
      status.textContent = ` ${(error as Error).message}`;
      resend.disabled = false;
    }
  });
  return h("div", { class: "notice info verify-banner", role: "region", "aria-label": "E-mail confirmation" },
    h("p", {}, "Confirm your e-mail address with the link we sent you: your free credits are added then, and it lets you reset a forgotten password."),
    h("p", {}, resend, status),
  );
}
