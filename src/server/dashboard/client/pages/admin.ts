import { call } from "../api.ts";
import { barList, dataTable, stackedBars } from "../chart.ts";
import { h } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { count, shortDate, sumUsd, money, usd } from "../format.ts";
import type { AdminStats } from "../wire.ts";
import { consolePage } from "./console.ts";

const PERIODS = [7, 30, 90];

const stat = (label: string, value: string | Node) =>
  h("div", { class: "card stat" }, h("h2", { class: "stat-label" }, label), h("p", { class: "stat-value" }, value));

const errorRate = (errors: number, requests: number) => (requests === 0 ? "—" : `${((errors / requests) * 100).toFixed(1)}%`);

/** Per model or per provider: spend as bars, and every figure in the table beside them. */
function usageBreakdown(kind: "Model" | "Provider", rows: { name: string; spendUsd: string; requests: number; errors: number; avgLatencyMs: number }[], days: number) {
  if (rows.length === 0) return h("p", { class: "muted" }, `No requests in the last ${days} days.`);
  // The bars by spend, largest first (only the bars' order uses floating point; the table keeps the server's order).
  const bySpend = [...rows].sort((a, b) => Number(b.spendUsd) - Number(a.spendUsd));
  const top = bySpend[0]!;
  return barList({
    title: `Spend per ${kind.toLowerCase()}, last ${days} days`,
    summary: `Most spend: ${top.name}, ${usd(top.spendUsd)}.`,
    items: bySpend.map((r) => ({ label: r.name, value: Number(r.spendUsd), text: usd(r.spendUsd) })),
    table: {
      caption: `Requests per ${kind.toLowerCase()}, busiest first`,
      columns: [kind, "Spend", "Requests", "Errors", "Error rate", "Mean latency"],
      numeric: [1, 2, 3, 4, 5],
      rows: rows.map((r) => [r.name, money(r.spendUsd), count(r.requests), count(r.errors), errorRate(r.errors, r.requests), `${count(r.avgLatencyMs)} ms`]),
    },
  });
}

const section = (id: string, title: string, ...body: Node[]) =>
  h("section", { class: "card", "aria-labelledby": id }, h("h2", { id }, title), ...body);

/** The console's front page: credit sold and spent per day, how each model and provider does, and what is in flight. */
async function renderFigures(root: HTMLElement): Promise<void> {
  const requested = Number(new URLSearchParams(location.search).get("days") ?? "30");
  const days = PERIODS.includes(requested) ? requested : 30;
  const stats = await call<AdminStats>("GET", `/admin/stats?days=${days}`);
  const { daily } = stats;
  const sold = sumUsd(daily.map((d) => d.soldUsd));
  const spent = sumUsd(daily.map((d) => d.spentUsd));
  const requests = daily.reduce((n, d) => n + d.requests, 0);
  const errors = daily.reduce((n, d) => n + d.errors, 0);
  root.replaceChildren(
    h("nav", { class: "pager", "aria-label": "Period" }, PERIODS.map((n) => n === days
      ? h("span", { "aria-current": "true" }, `${n} days`)
      : h("a", { href: pageUrl("admin", { days: String(n) }) }, `${n} days`))),
    h("div", { class: "stats" },
      stat("In flight now", count(stats.inflight.requests)),
      stat(`Credit sold, ${days} days`, money(sold)),
      stat(`Spent, ${days} days`, money(spent)),
      stat(`Requests, ${days} days`, `${count(requests)} (${errorRate(errors, requests)} errors)`),
    ),
    section("credit-per-day", "Credit sold and spent per day",
      stackedBars({
        title: `Credit sold and spent per day over the last ${days} days (UTC)`,
        summary: `Sold ${usd(sold)}, granted ${usd(sumUsd(daily.map((d) => d.grantedUsd)))}, spent ${usd(spent)}.`,
        labels: daily.map((d) => shortDate(d.date)),
        series: [{ name: "Sold", values: daily.map((d) => Number(d.soldUsd)) }, { name: "Spent", values: daily.map((d) => Number(d.spentUsd)) }],
        grouped: true,
        table: {
          caption: "Per day (UTC), newest first",
          columns: ["Day (UTC)", "Sold", "Granted", "Spent", "Requests", "Errors"],
          numeric: [1, 2, 3, 4, 5],
          rows: [...daily].reverse().map((d) => [d.date, money(d.soldUsd), money(d.grantedUsd), money(d.spentUsd), count(d.requests), count(d.errors)]),
        },
      })),
    section("per-model", "Per model", usageBreakdown("Model", stats.models.map((m) => ({ name: m.model, ...m })), days)),
    section("per-provider", "Per provider", usageBreakdown("Provider", stats.providers.map((p) => ({ name: p.provider, ...p })), days)),
    section("in-flight", "Requests in flight",
      stats.inflight.models.length === 0
        ? h("p", { class: "muted" }, "Nothing in flight right now.")
        : dataTable({ caption: "Open reservations per model, on every instance", columns: ["Model", "Requests"], numeric: [1],
          rows: stats.inflight.models.map((m) => [m.model, count(m.requests)]) })),
  );
}

export const renderAdmin = consolePage(renderFigures);
