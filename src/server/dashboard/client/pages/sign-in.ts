import { call } from "../api.ts";
import { h } from "../dom.ts";
import { pageUrl, returnUrl } from "../env.ts";
import { field, form } from "../fields.ts";

const PASSWORD_MIN_LENGTH = 8;

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
      return signingUp && v.length < PASSWORD_MIN_LENGTH ? `Password must be at least ${PASSWORD_MIN_LENGTH} characters` : null;
    },
  });
  const signInForm = form({
    fields: [email, password],
    submitLabel: signingUp ? "Create account" : "Sign in",
    labelledBy: "main-heading",
    onSubmit: async () => {
      // Here a 401 is a wrong password, not an ended session.
      await call("POST", signingUp ? "/auth/signup" : "/auth/login", { email: email.value(), password: password.value() }, { unauthorized: "throw" });
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
  root.replaceChildren(h("div", { class: "card narrow" }, signInForm), other);
}
