import { h, svg, uniqueId } from "../dom.ts";
import { plural, shortDate, usd } from "../format.ts";
import type { DaySpendView } from "../wire.ts";

const WIDTH = 600;
const HEIGHT = 160;
const GAP = 4;

// Amounts are exact decimal strings; only the bars' heights are computed in floating point.
const amountOf = (day: DaySpendView): number => Number(day.spendUsd);

/**
 * Daily spend as bars in inline SVG, with each day's figure in its tooltip, a summary for
 * screen readers, and the same figures as a table behind a disclosure.
 */
export function spendChart(days: DaySpendView[]): HTMLElement {
  const highest = days.reduce((top, day) => (amountOf(day) > amountOf(top) ? day : top), days[0]!);
  const max = amountOf(highest);
  const slot = WIDTH / days.length;
  const titleId = uniqueId("chart-title");
  const descId = uniqueId("chart-desc");
  const summary = max === 0
    ? "No spend in the last 30 days."
    : `Highest: ${usd(highest.spendUsd)} on ${shortDate(highest.date)}.`;

  const bars = days.map((day, i) => {
    // A day with any spend keeps a sliver of a bar, so that it is not mistaken for none.
    const height = max === 0 || amountOf(day) === 0 ? 0 : Math.max(2, (amountOf(day) / max) * HEIGHT);
    return svg("rect", { x: (i * slot + GAP / 2).toFixed(2), y: (HEIGHT - height).toFixed(2), width: (slot - GAP).toFixed(2), height: height.toFixed(2), class: "bar" },
      svg("title", {}, `${shortDate(day.date)}: ${usd(day.spendUsd)}, ${plural(day.requests, "request")}`));
  });
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: "none", role: "img", "aria-labelledby": `${titleId} ${descId}`, class: "chart" },
    svg("title", { id: titleId }, "Daily spend over the last 30 days (UTC)"),
    svg("desc", { id: descId }, summary),
    svg("line", { x1: 0, y1: HEIGHT - 0.5, x2: WIDTH, y2: HEIGHT - 0.5, class: "axis" }),
    bars,
  );
  const first = days[0]!;
  const last = days.at(-1)!;
  return h("figure", { class: "chart-figure" },
    h("p", { class: "chart-scale muted", "aria-hidden": "true" }, max === 0 ? "$0.00" : usd(highest.spendUsd)),
    chart,
    h("div", { class: "chart-axis muted", "aria-hidden": "true" }, h("span", {}, shortDate(first.date)), h("span", {}, shortDate(last.date))),
    h("figcaption", { class: "muted" }, summary),
    h("details", {},
      h("summary", {}, "Show as a table"),
      h("div", { class: "table-scroll" },
        h("table", {},
          h("caption", { class: "visually-hidden" }, "Spend per day (UTC)"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Day (UTC)"), h("th", { scope: "col", class: "num" }, "Spend"), h("th", { scope: "col", class: "num" }, "Requests"))),
          h("tbody", {}, days.map((day) => h("tr", {}, h("td", {}, day.date), h("td", { class: "num" }, usd(day.spendUsd)), h("td", { class: "num" }, day.requests)))),
        ),
      ),
    ),
  );
}
