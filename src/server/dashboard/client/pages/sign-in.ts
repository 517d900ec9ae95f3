import { ApiError, call } from "../api.ts";
import { h } from "../dom.ts";
import { pageUrl, returnUrl } from "../env.ts";
import { field, form } from "../fields.ts";
import { PASSWORD_MIN_LENGTH, passwordRule } from "./password-fields.ts";

// The server's answer to a right password on an account with two-factor sign-in, without a code.
const CODE_REQUIRED = "Two-factor code required";

/** Sign in (`mode` "signin") or create an account ("signup"); both end signed in, on the page the user came for. */
export async function renderSignIn(root: HTMLElement, mode: "signin" | "signup"): Promise<void> {
  const signingUp = mode === "signup";
  const email = field({
    name: "email", label: "Email", type: "email", autocomplete: "username",
    validate: (v) => (/^\S+@\S+$/.test(v) ? null : "Enter your e-mail address, such as name@example.com"),
  });
  const password = field({
    name: "password", label: "Password", type: "password",
    autocomplete: signingUp ? "new-password" : "current-password",
    hint: signingUp ? `At least ${PASSWORD_MIN_LENGTH} characters.` : undefined,
    validate: (v) => {
      if (v === "") return "Enter your password";
      return signingUp ? passwordRule(v) : null;
    },
  });
  // Asked for only once the server says the account has two-factor sign-in.
  const code = field({
    name: "code", label: "Two-factor code", inputMode: "numeric", autocomplete: "one-time-code", size: "recovery-code", maxLength: 19,
    hint: "The 6 digits your authenticator app shows, or one of your recovery codes.",
  });
  code.element.hidden = true;
  const signInForm = form({
    fields: [email, password, code],
    submitLabel: signingUp ? "Create account" : "Sign in",
    labelledBy: "main-heading",
    onSubmit: async () => {
      const body = { email: email.value(), password: password.value(), ...(code.element.hidden ? {} : { code: code.value() }) };
      try {
        // Here a 401 is a wrong password or code, not an ended session.
        await call("POST", signingUp ? "/auth/signup" : "/auth/login", body, { unauthorized: "throw" });
      } catch (error) {
        if (!(error instanceof ApiError && error.message === CODE_REQUIRED)) throw error;
        code.element.hidden = false;
        code.input.focus();
        return "Your account has two-factor sign-in: enter the code from your app.";
      }
      location.assign(returnUrl());
      return "Signed in. Opening your dashboard…";
    },
  });
  // The other form keeps the query, so that either one returns the user where they were going.
  const [question, otherPage, linkText] = signingUp
    ? ["Already have an account? ", "signin", "Sign in"] as const
    : ["New here? ", "signup", "Create an account"] as const;
  const keptQuery = Object.fromEntries(new URLSearchParams(location.search));
  const other = h("p", {}, question, h("a", { href: pageUrl(otherPage, keptQuery) }, linkText));
  const forgot = signingUp ? null : h("p", {}, h("a", { href: pageUrl("forgot") }, "Forgot your password?"));
  // Sent here by an invitation's link: which address to use, before anything else.
  const invited = returnUrl().startsWith(pageUrl("invitation"))
    ? h("p", { class: "notice info" }, `${signingUp ? "Create an account" : "Sign in"} with the e-mail address the invitation was sent to; you accept it next.`)
    : null;
  root.replaceChildren(invited ?? "", h("div", { class: "card narrow" }, signInForm), other, forgot ?? "");
}
