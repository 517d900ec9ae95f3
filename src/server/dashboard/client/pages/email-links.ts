import { call } from "../api.ts";
import { h } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { field, form } from "../fields.ts";
import { usd } from "../format.ts";
import type { SecurityView } from "../wire.ts";
import { newPasswordFields } from "./password-fields.ts";

// The pages the gateway's e-mails lead to (verify, reset) and the one that sends a reset link.

/**
 * The link's token, taken out of the address at once: it then stays in no history entry,
 * bookmark or screenshot of the address bar, and the page keeps it in memory only.
 */
function takeToken(): string {
  const params = new URLSearchParams(location.search);
  const token = params.get("token") ?? "";
  params.delete("token");
  const rest = params.toString();
  history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : ""));
  return token;
}

const dashboardLink = (text = "Open your dashboard") => h("a", { href: pageUrl("overview") }, text);

const card = (...children: Node[]) => h("div", { class: "card narrow" }, ...children);

/**
 * Confirms the e-mail address from the verification link. It waits for a press of the button,
 * so that a mail scanner opening the link cannot use it up.
 */
export async function renderVerify(root: HTMLElement): Promise<void> {
  const token = takeToken();
  const status = h("div", { class: "form-status", "aria-live": "polite" });
  const button = h("button", { type: "button", class: "button" }, "Confirm my e-mail address");
  button.addEventListener("click", async () => {
    button.disabled = true;
    const say = (tone: "success" | "error", ...text: (string | Node)[]) =>
      status.replaceChildren(h("p", { class: `notice ${tone}`, role: tone === "error" ? "alert" : "status" }, ...text));
    try {
      const { creditsGrantedUsd } = await call<{ creditsGrantedUsd?: string }>("POST", "/auth/verify", { token }, { unauthorized: "throw" });
      say("success", "Your e-mail address is confirmed. ",
        creditsGrantedUsd ? `${usd(creditsGrantedUsd)} of free credits added to your balance. ` : "",
        dashboardLink());
      button.remove();
    } catch (error) {
      button.disabled = false;
      // A link used twice is usually an address confirmed already: said so to a signed-in reader.
      const verified = await call<SecurityView>("GET", "/account/security", undefined, { unauthorized: "throw" })
        .then((s) => s.emailVerified, () => null);
      if (verified === true) {
        say("success", "Your e-mail address is already confirmed. ", dashboardLink());
        button.remove();
      } else if (verified === false) {
        say("error", `${(error as Error).message}. Ask for a new link from the banner at the top of your `, dashboardLink("dashboard"), ".");
      } else {
        say("error", `${(error as Error).message}. `, h("a", { href: pageUrl("signin") }, "Sign in"),
          ": if your address is not confirmed yet, the dashboard offers a new link.");
      }
    }
  });
  root.replaceChildren(card(h("p", {}, "Confirm that this e-mail address is yours."), status, h("div", { class: "actions" }, button)));
  button.focus();
}

/** Asks for a reset link. The answer is the same whether or not the address has an account. */
export async function renderForgot(root: HTMLElement): Promise<void> {
  const email = field({
    name: "email", label: "Email", type: "email", autocomplete: "username",
    validate: (v) => (/^\S+@\S+$/.test(v) ? null : "Enter your e-mail address, such as name@example.com"),
  });
  const forgotForm = form({
    fields: [email],
    submitLabel: "Send reset link",
    labelledBy: "main-heading",
    onSubmit: async () => {
      await call("POST", "/auth/password/forgot", { email: email.value() }, { unauthorized: "throw" });
      return `If ${email.value()} has an account, a link to choose a new password is on its way. It works for one hour.`;
    },
  });
  root.replaceChildren(card(forgotForm), h("p", {}, "Remembered it? ", h("a", { href: pageUrl("signin") }, "Sign in")));
}

/** Sets a new password from the reset link; every session of the account is signed out. */
export async function renderReset(root: HTMLElement): Promise<void> {
  const token = takeToken();
  const passwords = newPasswordFields("password", "New password");
  const resetForm = form({
    fields: passwords.fields,
    submitLabel: "Set new password",
    labelledBy: "main-heading",
    onSubmit: async () => {
      await call("POST", "/auth/password/reset", { token, password: passwords.value() }, { unauthorized: "throw" });
      resetForm.replaceWith(h("p", { class: "notice success", role: "status" },
        "Your password is changed, and every device was signed out. ", h("a", { href: pageUrl("signin") }, "Sign in")));
    },
  });
  root.replaceChildren(card(resetForm), h("p", {}, h("a", { href: pageUrl("forgot") }, "Ask for a new link")));
}
