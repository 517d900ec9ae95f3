import { call } from "../api.ts";
import { h } from "../dom.ts";
import { actingFor, basePath, manages, pageUrl } from "../env.ts";
import { plural, sumUsd, money, usd } from "../format.ts";
import type { AccountView, MemberView, SpendSummary } from "../wire.ts";
import { asRole } from "../org-switcher.ts";
import { transferCard } from "./org-transfer.ts";
import { spendChart } from "./spend-chart.ts";

const stat = (label: string, value: Node, ...more: (Node | string)[]) =>
  h("div", { class: "card stat" }, h("h2", { class: "stat-label" }, label), h("p", { class: "stat-value" }, value), more);

/** Spend figures and the daily chart: the account's, or the organization's for its owners and admins. */
function spendCards(spend: SpendSummary): { stats: HTMLElement[]; chart: HTMLElement } {
  const saved = sumUsd(spend.daily.map((day) => day.savedUsd));
  return {
    stats: [
      stat("Spend, last 24 hours", money(spend.last24Hours.spendUsd), h("p", { class: "muted" }, plural(spend.last24Hours.requests, "request"))),
      stat("Saved by prompt caching, 30 days", money(saved),
        h("p", { class: "muted" }, "Prompt tokens the provider read from its cache, charged at the cached-input price.")),
    ],
    chart: h("section", { class: "card", "aria-labelledby": "daily-spend" }, h("h2", { id: "daily-spend" }, "Daily spend, last 30 days"),
      // Thirty days of nothing say nothing: a new account is told what will be here, and how to start.
      spend.daily.every((day) => day.requests === 0)
        ? h("p", {}, "No spend yet. Requests made with your API keys show here, day by day. ", h("a", { href: pageUrl("keys") }, "Create an API key"), ".")
        : spendChart(spend.daily)),
  };
}

/** In an organization, what the person's own keys spent today against its daily cap. */
async function ownDay(): Promise<HTMLElement | null> {
  if (actingFor === null) return null;
  const { members } = await call<{ members: MemberView[] }>("GET", `/orgs/${actingFor.id}/members`);
  const me = members.find((m) => m.userId === actingFor?.personId);
  if (!me) return null;
  const cap = me.spendCapUsdPerDay;
  return stat("Your spend today (UTC)", money(me.spentTodayUsd),
    h("p", { class: "muted" }, cap === null ? "Your keys have no daily cap here." : `Your keys may spend ${usd(cap)} a day here.`));
}

/**
 * Balance, the last 24 hours' spend, what caching saved in 30 days, 30 days of daily spend, and
 * how to call the API. For an organization: its balance, "Move credit in", and the spend for its owners and admins.
 */
export async function renderOverview(root: HTMLElement): Promise<void> {
  const [account, spend, mine] = await Promise.all([
    call<AccountView>("GET", "/account"), manages() ? call<SpendSummary>("GET", "/account/spend") : null, ownDay(),
  ]);
  const spent = spend === null ? null : spendCards(spend);
  const balance = h("span", {}, money(account.balanceUsd));
  root.replaceChildren(
    h("p", { class: "muted" }, actingFor ? `Acting for ${actingFor.name} as ${asRole(actingFor.role)}.` : `Signed in as ${account.email}`),
    h("div", { class: "stats" },
      stat("Balance", balance, manages() ? h("a", { href: pageUrl("topup"), class: "button" }, "Top up") : ""),
      mine ?? "",
      ...(spent?.stats ?? []),
    ),
    actingFor ? transferCard(actingFor, (usd) => balance.replaceChildren(money(usd))) : "",
    spent?.chart ?? "",
    h("section", { class: "card", "aria-labelledby": "quick-start" },
      h("h2", { id: "quick-start" }, "Call the API"),
      h("p", {}, "Point any OpenAI SDK at this base URL with one of your ", h("a", { href: pageUrl("keys") }, "API keys"), ":"),
      h("pre", {}, h("code", {}, `${location.origin}${basePath}/v1`)),
    ),
  );
}
