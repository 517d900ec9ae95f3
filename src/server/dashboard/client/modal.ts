import { h, uniqueId } from "./dom.ts";

/**
 * A modal dialog (the native <dialog>: focus stays inside, Escape closes it, focus returns to
 * where it was). `build` makes the content and is handed `close`; resolves with what it passed.
 */
export function openModal(title: string, build: (close: (result: string) => void, titleId: string) => Node[]): Promise<string> {
  const titleId = uniqueId("dialog-title");
  const dialog = h("dialog", { "aria-labelledby": titleId });
  const close = (result: string) => dialog.close(result);
  dialog.append(h("h2", { id: titleId }, title), ...build(close, titleId));
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue);
    }, { once: true });
    dialog.showModal();
  });
}

/** Asks before an action that cannot be undone; Cancel comes first and has the focus. */
export async function confirmAction(options: { title: string; body: string; confirmLabel: string }): Promise<boolean> {
  const result = await openModal(options.title, (close) => [
    h("p", {}, options.body),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "button secondary", onClick: () => close("cancel") }, "Cancel"),
      h("button", { type: "button", class: "button danger", onClick: () => close("confirm") }, options.confirmLabel),
    ),
  ]);
  return result === "confirm";
}
