// Layout checks shared by the browser tests.
import type { Page } from "playwright-core";

/**
 * What is out of place on the page: anything wider than the viewport, any table wider than its
 * box, and any money (`.num`) or status (`.badge`) cell outside its table's box or the viewport,
 * or not shown at all. Vertical scrolling inside a box is fine; sideways hiding is not.
 */
export const layoutProblems = async (page: Page) => {
  // A table drawn afresh is fitted to its box by a ResizeObserver, whose callback runs after the
  // next layout and before that frame is painted: measured before it, a table a phone shows
  // stacked can still be found wide. Two frames on, every observer of the last change has run.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return measuredProblems(page);
};

const measuredProblems = (page: Page) => page.evaluate(() => {
  const problems: string[] = [];
  const viewport = document.documentElement.clientWidth;
  const name = (el: Element) => `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(" ").join(".")}` : ""} "${(el.textContent ?? "").trim().slice(0, 40)}"`;
  if (document.documentElement.scrollWidth > viewport) problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${viewport}`);
  for (const el of document.querySelectorAll("main *")) {
    const box = el.getBoundingClientRect();
    // Headings kept for screen readers only (clipped to nothing) are not on screen.
    // A code sample scrolls sideways inside its own box (the <pre>, itself checked), as a terminal would.
    const inCode = el.parentElement?.closest("pre") != null;
    if (box.width > 0 && box.right > viewport + 0.5 && !inCode && !el.closest(".visually-hidden, table.stacked thead")) problems.push(`past the viewport's edge: ${name(el)}`);
  }
  for (const table of document.querySelectorAll("main table")) {
    const frame = table.closest(".table-scroll") ?? table.parentElement!;
    const edge = frame.getBoundingClientRect();
    if (table.scrollWidth > frame.clientWidth + 0.5) problems.push(`a table wider than its box: ${name(table.querySelector("caption") ?? table)}`);
    for (const cell of table.querySelectorAll("td.num, td .badge")) {
      const box = cell.getBoundingClientRect();
      if (box.width === 0 || getComputedStyle(cell).visibility === "hidden") problems.push(`not shown: ${name(cell)}`);
      else if (box.right > edge.right + 0.5 || box.left < edge.left - 0.5) problems.push(`outside its table's box: ${name(cell)}`);
    }
  }
  return problems;
});

/**
 * Money shown against the dashboard's one rule: no figure past the API's 9 decimals, none left
 * as "10.000000000 USD", a cut figure carries its exact amount as a title and is cut toward zero
 * (never shown above it, and less than one unit of its last place below it), and in a table's
 * money column the decimal points line up (measured on the "." itself).
 */
export const moneyProblems = (page: Page) => page.evaluate(() => {
  const problems: string[] = [];
  const text = document.querySelector("main")?.innerText ?? "";
  for (const match of text.matchAll(/\$[\d,]+\.\d{10,}|\d+\.\d+ USD/g)) problems.push(`money not to the rule: ${match[0]}`);
  for (const figure of document.querySelectorAll("main .money")) {
    const shown = (figure.textContent ?? "").replace(/[^\d.]/g, "");
    const exact = (figure.getAttribute("title") ?? figure.textContent ?? "").replace(/[^\d.]/g, "");
    const unit = 10 ** -(shown.split(".")[1]?.length ?? 0);
    // Floats only to compare, within a tolerance far below any unit shown.
    const gap = Number(exact) - Number(shown);
    if (gap < -1e-12 || gap >= unit - 1e-12) problems.push(`a title that is not the figure: ${figure.textContent} / ${exact}`);
  }
  const point = (cell: Element): number | null => {
    const node = [...(cell.querySelector(".money")?.childNodes ?? [])].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.includes("."));
    if (!node) return null;
    const range = document.createRange();
    range.setStart(node, node.textContent!.indexOf("."));
    range.setEnd(node, node.textContent!.indexOf(".") + 1);
    return range.getBoundingClientRect().left;
  };
  for (const table of document.querySelectorAll("main table:not(.stacked)")) {
    const columns = table.querySelector("tbody tr")?.children.length ?? 0;
    for (let i = 0; i < columns; i++) {
      const points = [...table.querySelectorAll(`tbody tr > :nth-child(${i + 1})`)].map(point).filter((x) => x !== null);
      if (points.length > 1 && Math.max(...points) - Math.min(...points) > 1) problems.push(`decimal points not lined up in column ${i + 1} of "${table.querySelector("caption")?.textContent}"`);
    }
  }
  return problems;
});
