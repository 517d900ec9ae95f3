import { call } from "../api.ts";
import { dataTable } from "../chart.ts";
import { h } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { field, form } from "../fields.ts";
import { count, dateTime, money, usdAsTyped, usd } from "../format.ts";
import { confirmAction } from "../modal.ts";
import type { AccountDetail, AdminAccount, GrantResult } from "../wire.ts";

/** The ledger keeps nano-USD: an amount with more decimals is refused. */
const MAX_DECIMALS = 9;
const STATES: Record<string, string> = { active: "success", banned: "error", deleted: "expired" };

export const stateBadge = (account: AdminAccount) =>
  h("span", { class: `badge ${STATES[account.state] ?? "expired"}` }, account.state[0]!.toUpperCase() + account.state.slice(1));

const fact = (term: string, value: string | Node) => h("div", {}, h("dt", {}, term), h("dd", {}, value));

const section = (id: string, title: string, ...body: Node[]) =>
  h("section", { class: "card", "aria-labelledby": id }, h("h2", { id, tabindex: "-1" }, title), ...body);

/** Why an amount typed in the grant form cannot be sent, or null when it can. */
export function grantAmountProblem(value: string): string | null {
  if (!/^-?\d+(\.\d+)?$/.test(value)) return "Enter an amount in USD, such as 25 or -2.50";
  if ((value.split(".")[1] ?? "").length > MAX_DECIMALS) return `Use at most ${MAX_DECIMALS} decimal places (the ledger counts to the billionth of a dollar)`;
  return /^-?[0.]+$/.test(value) ? "Enter a non-zero amount, such as 25 or -2.50" : null;
}

/**
 * Grant credits (or take them back with a negative amount), with a note kept in the ledger and
 * the audit log. The note is required here (the API fills in a default) and the operator confirms first.
 */
function grantForm(email: string, done: (message: string) => Promise<void>): HTMLFormElement {
  const usdField = field({
    name: "usd", label: "Amount (USD)", inputMode: "decimal",
    hint: `A negative amount takes credits back (an adjustment). Up to ${MAX_DECIMALS} decimal places.`,
    validate: grantAmountProblem,
  });
  const note = field({
    name: "note", label: "Note", hint: "Why: kept in the ledger and the audit log.", maxLength: 500,
    validate: (v) => (v === "" ? "Say why, for the ledger and the audit log" : null),
  });
  return form({
    fields: [usdField, note],
    submitLabel: "Grant credits",
    labelledBy: "grant-heading",
    onSubmit: async () => {
      const typed = usdField.value();
      const taking = typed.startsWith("-");
      const confirmed = await confirmAction({
        title: taking ? `Take ${usdAsTyped(typed.slice(1))} back from ${email}?` : `Grant ${usdAsTyped(typed)} to ${email}?`,
        body: `Note: “${note.value()}”. The ledger keeps the entry for good; a mistake is corrected by another entry.`,
        confirmLabel: taking ? "Take credits back" : "Grant credits",
      });
      if (!confirmed) return;
      // The amount goes as the typed decimal string, so the server reads it exactly.
      const result = await call<GrantResult>("POST", `/admin/accounts/${encodeURIComponent(email)}/credits`, { usd: typed, note: note.value() });
      usdField.input.value = "";
      note.input.value = "";
      await done(`${result.kind === "grant" ? "Granted" : "Took back"} ${usdAsTyped(result.amountUsd.replace("-", ""))}. The balance is now ${usd(result.balanceUsd)}.`);
    },
  });
}

/** Ban or unban, after asking; a ban refuses the account's sign-ins and API requests at once. */
function banButton(account: AdminAccount, done: (message: string) => Promise<void>): HTMLButtonElement {
  const banned = account.state === "banned";
  return h("button", {
    type: "button", class: banned ? "button secondary" : "button danger",
    onClick: async () => {
      const confirmed = await confirmAction(banned
        ? { title: `Unban ${account.email}?`, body: "The account can sign in and use its keys again.", confirmLabel: "Unban" }
        : { title: `Ban ${account.email}?`, body: "Its sign-ins and API requests are refused at once, on every instance.", confirmLabel: "Ban" });
      if (!confirmed) return;
      await call("POST", `/admin/accounts/${encodeURIComponent(account.email)}/${banned ? "unban" : "ban"}`);
      await done(banned ? `${account.email} is unbanned.` : `${account.email} is banned.`);
    },
  }, banned ? "Unban account" : "Ban account");
}

/** One account for an operator: balance and state, grant and ban, keys, purchases and latest requests. */
export async function renderAccountDetail(root: HTMLElement, email: string, notice?: string): Promise<void> {
  const detail = await call<AccountDetail>("GET", `/admin/accounts/${encodeURIComponent(email)}`);
  const { account } = detail;
  const redraw = async (message: string) => {
    await renderAccountDetail(root, email, message);
    document.getElementById("account-heading")?.focus();
  };
  root.replaceChildren(
    h("p", {}, h("a", { href: pageUrl("adminAccounts") }, "← All accounts")),
    h("div", { class: "form-status", "aria-live": "polite" }, notice ? h("p", { class: "notice success", role: "status" }, notice) : null),
    section("account-heading", account.email,
      h("dl", { class: "facts" },
        fact("State", stateBadge(account)), fact("Balance", money(account.balanceUsd)), fact("Reserved", money(account.reservedUsd)),
        fact("In flight", count(account.inflight)), fact("Operator", account.admin ? "Yes" : "No"), fact("Created", dateTime(account.createdAt))),
      h("div", { class: "actions" }, banButton(account, redraw))),
    section("grant-heading", "Grant credits", grantForm(account.email, redraw)),
    section("keys-heading", "API keys", detail.keys.length === 0 ? h("p", { class: "muted" }, "No keys.") : dataTable({
      caption: "Keys, newest first", columns: ["Name", "Prefix", "Status", "Requests", "Spend", "Last used"], numeric: [3, 4],
      rows: detail.keys.map((k) => [k.name, `${k.prefix}…`, k.status, count(k.total_requests), money(k.total_spend_usd), k.lastUsedAt ? dateTime(k.lastUsedAt) : "Never"]),
    })),
    section("purchases-heading", "Purchases", detail.purchases.length === 0 ? h("p", { class: "muted" }, "No purchases.") : dataTable({
      caption: "Purchases, newest first, with what was refunded or disputed", columns: ["Date", "Purchase", "Credits", "Paid", "Refunded", "Disputed", "Status"],
      numeric: [2, 3, 4, 5],
      rows: detail.purchases.map((p) => [
        dateTime(p.createdAt),
        h("span", {}, p.packName, p.source === "auto_topup" ? " (automatic top-up)" : "", h("br"), h("code", { class: "muted" }, p.id)),
        money(p.creditsUsd),
        p.paidUsd === null ? "—" : money(p.paidUsd),
        money(p.refundedUsd),
        p.disputedUsd === null ? "—" : h("span", {}, money(p.disputedUsd), ` (${p.disputeStatus ?? "open"})`),
        p.status,
      ]),
    })),
    section("usage-heading", "Latest requests", detail.usage.length === 0 ? h("p", { class: "muted" }, "No requests.") : dataTable({
      caption: "The 20 latest requests", columns: ["Time", "Model", "Key", "Cost", "Latency", "Status"], numeric: [3, 4],
      rows: detail.usage.map((u) => [dateTime(u.createdAt), u.model, u.keyName ?? "—", money(u.costUsd), `${count(u.latencyMs)} ms`, u.error ? `error: ${u.error}` : u.status]),
    })),
  );
  document.title = `${account.email} · Accounts · Gateway`;
}
