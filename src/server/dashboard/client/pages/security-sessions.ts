import { call } from "../api.ts";
import { device } from "../audit-words.ts";
import { confirmAction } from "../modal.ts";
import { h, hidden } from "../dom.ts";
import { dateTime } from "../format.ts";
import type { SessionList, SessionView } from "../wire.ts";

function sessionItem(session: SessionView, refresh: () => Promise<void>): HTMLElement {
  const name = device(session.userAgent);
  const end = h("button", { type: "button", class: "button secondary" }, "Sign out", hidden(` ${name}, ${session.ip ?? ""}`));
  end.addEventListener("click", async () => {
    if (!(await confirmAction({ title: `Sign out ${name}?`, body: "That device will have to sign in again.", confirmLabel: "Sign out" }))) return;
    await call("DELETE", `/auth/sessions/${session.id}`);
    await refresh();
  });
  return h("li", { class: "card session" },
    h("div", { class: "key-head" }, h("h3", { title: session.userAgent ?? "" }, name),
      session.current ? h("span", { class: "badge active" }, "This device") : null),
    h("dl", { class: "facts" },
      h("div", {}, h("dt", {}, "IP address"), h("dd", {}, session.ip ?? "unknown")),
      h("div", {}, h("dt", {}, "Signed in"), h("dd", {}, dateTime(session.createdAt))),
      h("div", {}, h("dt", {}, "Last active"), h("dd", {}, dateTime(session.lastSeenAt))),
    ),
    session.current ? null : h("div", { class: "actions" }, end),
  );
}

/** The account's sessions, this device first marked, each with a way to end it, and one to end all the others. */
export async function renderSessions(root: HTMLElement): Promise<void> {
  const refresh = () => renderSessions(root);
  const { sessions } = await call<SessionList>("GET", "/auth/sessions");
  const others = sessions.filter((s) => !s.current).length;
  const status = h("div", { class: "form-status", "aria-live": "polite" });
  const endOthers = h("button", { type: "button", class: "button danger" }, "Sign out all other devices");
  endOthers.addEventListener("click", async () => {
    const confirmed = await confirmAction({ title: "Sign out all other devices?", body: "Every device but this one will have to sign in again.", confirmLabel: "Sign out others" });
    if (!confirmed) return;
    await call("POST", "/auth/sessions/revoke-others");
    await refresh();
    root.querySelector(".form-status")?.replaceChildren(h("p", { class: "notice success", role: "status" }, "Every other device was signed out."));
  });
  root.replaceChildren(
    h("ul", { class: "key-list" }, sessions.map((s) => sessionItem(s, refresh))),
    status,
    others > 0 ? h("div", { class: "actions" }, endOthers) : h("p", { class: "muted" }, "You are signed in on this device only."),
  );
}
