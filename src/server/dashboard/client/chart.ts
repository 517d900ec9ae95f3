import { h, svg, uniqueId } from "./dom.ts";
import { fitTable } from "./table-fit.ts";

// Charts as inline SVG, drawn from the same figures the table beside them shows: no library,
// nothing fetched, a few hundred bytes of markup for a phone to lay out. Only bar lengths use
// floating point; every figure a person reads comes as exact text from the API.

export interface Series {
  name: string;
  /** Bar lengths, one per category (floating point, for drawing only). */
  values: number[];
}

export interface TableSpec {
  caption: string;
  columns: string[];
  /** Columns (by index) holding numbers, aligned right. */
  numeric?: number[];
  rows: (string | number | Node)[][];
}

const WIDTH = 600;
const HEIGHT = 160;
const GAP = 2;

const swatch = (index: number) =>
  svg("svg", { viewBox: "0 0 10 10", class: "swatch", "aria-hidden": "true" }, svg("rect", { width: 10, height: 10, class: `series-${index}` }));

/** The figures as a table, in a box that scrolls on its own when it is wider or taller than the page allows. */
export function dataTable(spec: TableSpec): HTMLElement {
  const numeric = new Set(spec.numeric ?? []);
  const cell = (value: string | number | Node, i: number) => h("td", { class: numeric.has(i) ? "num" : undefined }, value);
  const captionId = uniqueId("table-caption");
  const table = h("table", {},
    h("caption", { id: captionId }, spec.caption),
    h("thead", {}, h("tr", {}, spec.columns.map((c, i) => h("th", { scope: "col", class: numeric.has(i) ? "num" : undefined }, c)))),
    h("tbody", {}, spec.rows.map((row) => h("tr", {}, row.map(cell)))),
  );
  return fitTable(h("div", { class: "table-scroll chart-table", tabindex: "0", role: "region", "aria-labelledby": captionId }, table), table);
}

/**
 * Vertical bars over categories (days): one bar per category with the series stacked in it, or
 * (`grouped`) the series' bars side by side, for figures that do not add up (sold and spent).
 * The SVG is a labelled image whose description says the highest total; the table beside it
 * carries every figure for keyboards, screen readers and anyone who would rather read.
 */
export function stackedBars(input: {
  title: string; summary: string; labels: string[]; series: Series[]; table: TableSpec; grouped?: boolean;
}): HTMLElement {
  const { labels, series, grouped = false } = input;
  const heights = labels.map((_, i) => series.map((s) => s.values[i] ?? 0));
  const max = Math.max(0, ...heights.map((values) => (grouped ? Math.max(0, ...values) : values.reduce((a, b) => a + b, 0))));
  const slot = WIDTH / Math.max(1, labels.length);
  const barWidth = Math.max(1, (grouped ? slot / series.length : slot) - GAP);
  const bars = labels.flatMap((label, i) => {
    let top = HEIGHT;
    return series.map((s, k) => {
      const value = s.values[i] ?? 0;
      // A bar with anything in it keeps a sliver, so that it is not mistaken for none.
      const height = max === 0 || value === 0 ? 0 : Math.max(1.5, (value / max) * HEIGHT);
      top = grouped ? HEIGHT - height : top - height;
      const x = i * slot + GAP / 2 + (grouped ? k * (barWidth + GAP) : 0);
      return svg("rect", { x: x.toFixed(2), y: top.toFixed(2), width: barWidth.toFixed(2), height: height.toFixed(2), class: `series-${k}` },
        svg("title", {}, `${label}, ${s.name}`));
    });
  });
  const titleId = uniqueId("chart-title");
  const descId = uniqueId("chart-desc");
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: "none", role: "img", "aria-labelledby": `${titleId} ${descId}`, class: "chart" },
    svg("title", { id: titleId }, input.title),
    svg("desc", { id: descId }, input.summary),
    svg("line", { x1: 0, y1: HEIGHT - 0.5, x2: WIDTH, y2: HEIGHT - 0.5, class: "axis" }),
    bars,
  );
  const legend = series.length > 1
    ? h("ul", { class: "legend", "aria-hidden": "true" }, series.map((s, k) => h("li", {}, swatch(k), s.name)))
    : null;
  return h("figure", { class: "chart-pair" },
    h("div", { class: "chart-figure" },
      chart,
      h("div", { class: "chart-axis muted", "aria-hidden": "true" }, h("span", {}, labels[0] ?? ""), h("span", {}, labels.at(-1) ?? "")),
      legend,
      h("figcaption", { class: "muted" }, input.summary),
    ),
    dataTable(input.table),
  );
}

/** Horizontal bars, one per item (a model, a provider), longest first as given, with the table beside them. */
export function barList(input: { title: string; summary: string; items: { label: string; value: number; text: string }[]; table: TableSpec }): HTMLElement {
  const rowHeight = 22;
  const labelWidth = 190;
  const height = Math.max(rowHeight, input.items.length * rowHeight);
  const max = Math.max(0, ...input.items.map((item) => item.value));
  const titleId = uniqueId("chart-title");
  const descId = uniqueId("chart-desc");
  const rows = input.items.map((item, i) => {
    const width = max === 0 || item.value === 0 ? 0 : Math.max(1.5, (item.value / max) * (WIDTH - labelWidth - 110));
    const y = i * rowHeight;
    return svg("g", {},
      svg("text", { x: labelWidth - 6, y: y + 15, class: "bar-label", "text-anchor": "end" }, item.label),
      svg("rect", { x: labelWidth, y: y + 4, width: width.toFixed(2), height: rowHeight - 8, class: "series-0" }),
      svg("text", { x: labelWidth + width + 6, y: y + 15, class: "bar-value" }, item.text),
    );
  });
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${height}`, role: "img", "aria-labelledby": `${titleId} ${descId}`, class: "chart bar-list" },
    svg("title", { id: titleId }, input.title),
    svg("desc", { id: descId }, input.summary),
    rows,
  );
  return h("figure", { class: "chart-pair" },
    h("div", { class: "chart-figure" }, chart, h("figcaption", { class: "muted" }, input.summary)),
    dataTable(input.table),
  );
}
