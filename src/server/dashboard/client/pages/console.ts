import { h } from "../dom.ts";

/**
 * A console page's renderer: an account that is not an operator was answered 403 with this
 * page's shell (its data says so), and is told so instead of the content.
 */
export const consolePage = (render: (root: HTMLElement) => Promise<void>) =>
  async (root: HTMLElement, data: { forbidden?: boolean } | undefined): Promise<void> => {
    if (data?.forbidden) {
      root.replaceChildren(h("p", { class: "notice error", role: "alert" },
        "This page is for the gateway's operators. Your account is not one."));
      return;
    }
    await render(root);
  };
