import { stackedBars } from "../chart.ts";
import { shortDate, money, usd } from "../format.ts";
import type { ModelSpend } from "../wire.ts";

const seriesName = (model: string) => (model === "other" ? "Other models" : model);

/** Spend per model per day, stacked, with the same figures as a table (a row per day, a column per model). */
export function modelSpendChart(spend: ModelSpend): HTMLElement {
  const { dates, models } = spend;
  const summary = models.length === 0
    ? `No spend in the last ${spend.days} days.`
    : `Most spent on ${seriesName(models[0]!.model)}: ${usd(models[0]!.spendUsd)} in ${spend.days} days.`;
  return stackedBars({
    title: `Spend per model per day over the last ${spend.days} days (UTC)`,
    summary,
    labels: dates.map(shortDate),
    series: models.map((m) => ({ name: seriesName(m.model), values: m.daily.map(Number) })),
    table: {
      caption: "Spend per model per day (UTC), newest first",
      columns: ["Day (UTC)", ...models.map((m) => seriesName(m.model))],
      numeric: models.map((_, i) => i + 1),
      rows: dates.map((date, i) => [date, ...models.map((m) => money(m.daily[i] ?? "0"))]).reverse(),
    },
  });
}
