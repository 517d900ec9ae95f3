import { stackedBars } from "../chart.ts";
import { plural, shortDate, money, usd } from "../format.ts";
import type { DaySpendView } from "../wire.ts";

// Amounts are exact decimal strings; only the bars' heights are computed in floating point.
const amountOf = (day: DaySpendView): number => Number(day.spendUsd);

/** Daily spend as bars, with each day's figures in the table beside them. */
export function spendChart(days: DaySpendView[]): HTMLElement {
  const highest = days.reduce((top, day) => (amountOf(day) > amountOf(top) ? day : top), days[0]!);
  const requests = days.reduce((sum, day) => sum + day.requests, 0);
  const summary = amountOf(highest) === 0
    ? "No spend in the last 30 days."
    : `Highest: ${usd(highest.spendUsd)} on ${shortDate(highest.date)}; ${plural(requests, "request")} in 30 days.`;
  return stackedBars({
    title: "Daily spend over the last 30 days (UTC)",
    summary,
    labels: days.map((day) => shortDate(day.date)),
    series: [{ name: "Spend", values: days.map(amountOf) }],
    table: {
      // Newest first: the day a person looks for is today, not the oldest, often empty, one.
      caption: "Spend per day (UTC), newest first",
      columns: ["Day (UTC)", "Spend", "Requests"],
      numeric: [1, 2],
      rows: [...days].reverse().map((day) => [day.date, money(day.spendUsd), day.requests]),
    },
  });
}
