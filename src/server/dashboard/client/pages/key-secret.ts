import { copyText } from "../copy.ts";
import { h } from "../dom.ts";

/** How the panel names what it shows. */
export interface SecretWords {
  label: string;
  heading: string;
  body: string;
}

const KEY_WORDS: SecretWords = {
  label: "Your new API key",
  heading: "Copy your new key now",
  body: "This is the only time the key is shown. Store it somewhere safe, such as a secret manager; it cannot be retrieved later.",
};

/**
 * Shows the plaintext of a new key once, first in `container`, with a Copy button, and moves the
 * focus to it. "Done" removes it (emptying the input first), after which the page holds no
 * trace of it.
 */
export function showSecret(container: HTMLElement, secret: string, onDone: () => void, words: SecretWords = KEY_WORDS): void {
  const input = h("input", { type: "text", readonly: true, value: secret, class: "secret-value", "aria-label": words.label, spellcheck: "false", autocomplete: "off" });
  const copied = h("p", { class: "muted", "aria-live": "polite" });
  const heading = h("h2", { id: "new-key-heading", tabindex: "-1" }, words.heading);
  const panel = h("section", { class: "card secret", "aria-labelledby": heading.id },
    heading,
    h("p", {}, words.body),
    h("div", { class: "secret-row" },
      input,
      h("button", {
        type: "button", class: "button", onClick: async () => {
          copied.textContent = (await copyText(input.value, input)) ? "Copied to the clipboard." : "Select the key and copy it with Ctrl+C or ⌘C.";
        },
      }, "Copy"),
    ),
    copied,
    h("div", { class: "actions" },
      h("button", {
        type: "button", class: "button secondary", onClick: () => {
          input.value = "";
          input.defaultValue = "";
          panel.remove();
          onDone();
        },
      }, "Done, I have stored it"),
    ),
  );
  container.prepend(panel);
  // Read out first, with the key next in the tab order.
  heading.focus();
}
