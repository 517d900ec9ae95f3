import { ApiError, call } from "../api.ts";
import { h } from "../dom.ts";
import { basePath, pageUrl } from "../env.ts";
import { asRole } from "../org-switcher.ts";
import type { MembershipView } from "../wire.ts";
import { ORG_PARAM, PAGES } from "../../page-table.ts";

/** The server's refusals, said with what to do about each. */
function refusalText(error: unknown): string {
  if (!(error instanceof ApiError)) return "Something went wrong. Please try again.";
  if (error.status === 400) return "This invitation link is invalid, already used or expired. Ask whoever invited you to send a new one.";
  if (error.status === 403 && error.message.startsWith("Verify")) {
    return "Confirm your e-mail address first, with the link we e-mailed you (the banner above sends it again), then come back to this page.";
  }
  if (error.status === 403) {
    return "This invitation is for another e-mail address. Sign out and sign in (or create an account) with the address it was sent to.";
  }
  if (error.status === 409) return "You are already a member of this organization: choose it in the account switcher at the top.";
  return error.message;
}

/**
 * The e-mailed invitation's landing page (`?token=`): signed in (the server sends anyone else to
 * sign in or create an account, and back here), one button accepts it and opens the organization.
 */
export async function renderInvitation(root: HTMLElement): Promise<void> {
  const token = new URLSearchParams(location.search).get("token") ?? "";
  if (token === "") {
    root.replaceChildren(h("p", { class: "notice error", role: "alert" },
      "This link has no invitation in it. Open the link from the e-mail again, whole, or ask for a new invitation."));
    return;
  }
  const status = h("div", { class: "form-status", "aria-live": "polite" });
  const accept = h("button", { type: "button", class: "button" }, "Accept invitation");
  accept.addEventListener("click", async () => {
    accept.disabled = true;
    status.replaceChildren();
    try {
      const joined = await call<MembershipView>("POST", "/invitations/accept", { token });
      status.replaceChildren(h("p", { class: "notice success", role: "status" },
        `You joined ${joined.name} as ${asRole(joined.role)}. Opening it…`));
      location.assign(`${basePath}${PAGES.overview.path}?${new URLSearchParams({ [ORG_PARAM]: joined.id })}`);
    } catch (error) {
      status.replaceChildren(h("p", { class: "notice error", role: "alert" }, refusalText(error)));
      accept.disabled = false;
    }
  });
  root.replaceChildren(h("section", { class: "card narrow" },
    h("p", {}, "You were invited to join an organization on this gateway: you would spend its balance through keys of your own, within the limits its owners set."),
    h("p", { class: "muted" }, "Accepting needs the e-mail address the invitation was sent to, confirmed."),
    status,
    h("div", { class: "actions" }, accept, h("a", { href: pageUrl("overview"), class: "button secondary" }, "Not now"))));
}
