import { alignMoney } from "./format.ts";

// Tables that do not fit their box (a phone, a narrow column beside a chart) are shown as stacked
// rows, each cell under its column's name (the `data-label` the style sheet shows), so that no
// money or status column ends up scrolled out of sight. Whether a table fits is measured, not
// guessed from the screen's width: the same table fits a desktop's page but not a chart's side.

const widths = new WeakMap<Element, number>();

function fit(box: Element): void {
  const table = box.querySelector("table");
  if (!table || widths.get(box) === box.clientWidth) return;
  widths.set(box, box.clientWidth);
  table.classList.remove("stacked");
  if (table.offsetWidth > box.clientWidth + 1) table.classList.add("stacked");
}

// The box's width follows the page, never the table's layout, so stacking cannot feed back into it.
const observer = new ResizeObserver((entries) => {
  for (const entry of entries) fit(entry.target);
});

/**
 * Names every body cell after its column (a heading's own `data-label` first; a cell spanning
 * columns, such as a detail row's, is named by none), and stacks the table's rows whenever it is
 * wider than `box`.
 */
export function fitTable(box: HTMLElement, table: HTMLTableElement): HTMLElement {
  // Every table comes through here: its columns of money are lined up on their decimal points too.
  alignMoney(table);
  const labels = [...table.querySelectorAll("thead th")].map((th) => th.getAttribute("data-label") ?? th.textContent ?? "");
  for (const row of table.querySelectorAll("tbody tr")) {
    [...row.children].forEach((cell, i) => cell.setAttribute("data-label", (cell as HTMLTableCellElement).colSpan > 1 ? "" : labels[i] ?? ""));
  }
  observer.observe(box);
  return box;
}
