import qrcode from "qrcode-generator";
import { call } from "../api.ts";
import { h } from "../dom.ts";
import { field, form } from "../fields.ts";
import type { SecurityView, TotpEnabled, TotpSetup } from "../wire.ts";

const codeField = (label: string, hint: string, size: "code" | "recovery-code") => field({
  name: "code", label, inputMode: size === "code" ? "numeric" : undefined, autocomplete: "one-time-code", hint, size,
  maxLength: size === "code" ? 6 : 19,
  validate: (v) => (v === "" ? "Enter a code" : null),
});

/**
 * The QR code of the set-up's otpauth:// address, drawn here in the browser (a GIF data URL):
 * the secret goes to no other server.
 */
function qrImage(uri: string): HTMLImageElement {
  const qr = qrcode(0, "M");
  qr.addData(uri);
  qr.make();
  return h("img", { src: qr.createDataURL(5, 4), alt: "QR code for your authenticator app; the key below says the same", class: "qr" });
}

/** Copies `text`: the Clipboard API where the page is a secure context, else a selection of `shown` and the older copy command. */
async function copyText(text: string, shown: HTMLElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(shown);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
    return document.execCommand("copy");
  }
}

/**
 * The recovery codes, shown this once, in a panel that takes the focus, with Copy and Download
 * (a text file made in the page: the codes go to no server); Done removes them from the page.
 */
function recoveryPanel(codes: string[], done: () => void): HTMLElement {
  const heading = h("h3", { id: "recovery-heading", tabindex: -1 }, "Your recovery codes");
  const list = h("ul", { class: "recovery-codes" }, codes.map((c) => h("li", {}, h("code", {}, c))));
  const text = `Gateway recovery codes for ${location.host}. Each signs in once.\n\n${codes.join("\n")}\n`;
  const copied = h("p", { class: "muted", "aria-live": "polite" });
  const copy = h("button", { type: "button", class: "button secondary" }, "Copy codes");
  copy.addEventListener("click", async () => {
    copied.textContent = (await copyText(text, list)) ? "Copied to the clipboard." : "Select the codes and copy them with Ctrl+C or ⌘C.";
  });
  const panel = h("div", { class: "card secret", role: "region", "aria-labelledby": "recovery-heading" },
    heading,
    h("p", {}, "Each code signs you in once if you lose your phone. Store them somewhere safe now: they are not shown again."),
    list,
    h("div", { class: "actions" }, copy,
      h("a", { class: "button secondary", href: `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`, download: "gateway-recovery-codes.txt" }, "Download as a text file")),
    copied,
    h("div", { class: "actions" }, h("button", { type: "button", class: "button", onClick: done }, "Done, I have stored them")),
  );
  queueMicrotask(() => heading.focus());
  return panel;
}

function setUpView(root: HTMLElement, setup: TotpSetup): HTMLElement {
  const code = codeField("Code from the app", "The 6 digits the app shows now.", "code");
  const confirmForm = form({
    fields: [code],
    submitLabel: "Turn on two-factor sign-in",
    labelledBy: "totp-heading",
    onSubmit: async () => {
      const { recoveryCodes } = await call<TotpEnabled>("POST", "/auth/totp/enable", { code: code.value() });
      root.replaceChildren(recoveryPanel(recoveryCodes, () => void renderTwoFactor(root, { totpEnabled: true, recoveryCodesLeft: recoveryCodes.length })));
    },
  });
  return h("div", {},
    h("p", {}, "Scan this code with an authenticator app (such as Aegis, Google Authenticator or 1Password), then enter the code it shows."),
    qrImage(setup.uri),
    h("p", {}, "Or type this key into the app: ", h("code", { class: "secret-value" }, setup.secret)),
    confirmForm,
  );
}

/** Two-factor sign-in: set it up (QR code, confirm with a code, recovery codes once) or turn it off. */
export async function renderTwoFactor(root: HTMLElement, state: Pick<SecurityView, "totpEnabled" | "recoveryCodesLeft">): Promise<void> {
  if (!state.totpEnabled) {
    const start = h("button", { type: "button", class: "button" }, "Set up two-factor sign-in");
    start.addEventListener("click", async () => {
      const setup = await call<TotpSetup>("POST", "/auth/totp/setup");
      root.replaceChildren(setUpView(root, setup));
      root.querySelector("input")?.focus();
    });
    root.replaceChildren(
      h("p", {}, "Off. With it on, signing in also takes a code from an app on your phone."),
      h("div", { class: "actions" }, start),
    );
    return;
  }
  const code = codeField("Code from the app, or a recovery code", "Needed to turn two-factor sign-in off.", "recovery-code");
  const offForm = form({
    fields: [code],
    submitLabel: "Turn off two-factor sign-in",
    labelledBy: "totp-heading",
    onSubmit: async () => {
      await call("POST", "/auth/totp/disable", { code: code.value() });
      await renderTwoFactor(root, { totpEnabled: false, recoveryCodesLeft: 0 });
    },
  });
  root.replaceChildren(
    h("p", {}, h("span", { class: "badge active" }, "On"), ` ${state.recoveryCodesLeft} recovery codes left.`),
    offForm,
  );
}
