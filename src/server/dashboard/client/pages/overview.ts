import { call } from "../api.ts";
import { h } from "../dom.ts";
import { basePath, pageUrl } from "../env.ts";
import { plural, sumUsd, total } from "../format.ts";
import type { AccountView, SpendSummary } from "../wire.ts";
import { spendChart } from "./spend-chart.ts";

const stat = (label: string, value: Node, ...more: Node[]) =>
  h("div", { class: "card stat" }, h("h2", { class: "stat-label" }, label), h("p", { class: "stat-value" }, value), more);

/** Balance, the last 24 hours' spend, what caching saved in 30 days, 30 days of daily spend, and how to call the API. */
export async function renderOverview(root: HTMLElement): Promise<void> {
  const [account, spend] = await Promise.all([call<AccountView>("GET", "/account"), call<SpendSummary>("GET", "/account/spend")]);
  const { last24Hours } = spend;
  const saved = sumUsd(spend.daily.map((day) => day.savedUsd));
  root.replaceChildren(
    h("p", { class: "muted" }, `Signed in as ${account.email}`),
    h("div", { class: "stats" },
      stat("Balance", total(account.balanceUsd), h("a", { href: pageUrl("topup"), class: "button" }, "Top up")),
      stat("Spend, last 24 hours", total(last24Hours.spendUsd), h("p", { class: "muted" }, plural(last24Hours.requests, "request"))),
      stat("Saved by prompt caching, 30 days", total(saved),
        h("p", { class: "muted" }, "Prompt tokens the provider read from its cache, charged at the cached-input price.")),
    ),
    h("section", { class: "card", "aria-labelledby": "daily-spend" },
      h("h2", { id: "daily-spend" }, "Daily spend, last 30 days"),
      spendChart(spend.daily),
    ),
    h("section", { class: "card", "aria-labelledby": "quick-start" },
      h("h2", { id: "quick-start" }, "Call the API"),
      h("p", {}, "Point any OpenAI SDK at this base URL with one of your ", h("a", { href: pageUrl("keys") }, "API keys"), ":"),
      h("pre", {}, h("code", {}, `${location.origin}${basePath}/v1`)),
    ),
  );
}
